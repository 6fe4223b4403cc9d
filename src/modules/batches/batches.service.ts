import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bull';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import type { SecretBox } from '../../common/crypto/secret-box';
import { CursorCodec } from '../../common/http/cursor';
import { pageByCreatedAt } from '../../common/http/pagination';
import { ApiException } from '../../common/errors/api.exception';
import { newId } from '../../common/ids';
import { assertQueueReachable, QUEUES } from '../../common/queue/queues';
import { gs1Kind } from '../gs1/gs1-kind';
import { reserveCapacity } from '../qr-codes/capacity.repository';
import { assertRoomFor } from '../qr-codes/qr-code-limits';
import { QrCodesService } from '../qr-codes/qr-codes.service';
import { Batch, BatchItem } from './batch.entity';
import { BatchItemRow, presentBatch } from './batch.presenter';
import { isDynamicGs1Item, isStaticItem, itemKind, itemPasswordAad, itemPasswordBox, itemType, sealItemPassword } from './batch-request';
import { BatchRunnerService, CHUNK_SIZE } from './batch-runner.service';
import type { BatchDto, CreateBatchDto, ListBatchesQueryDto } from './batches.dto';

export const PROCESS_BATCH_JOB = 'process-batch';
/** Jobs enqueued per batch: as many workers as this can share one batch (each job claims chunks until none is left). */
export const JOBS_PER_BATCH = 4;

@Injectable()
export class BatchesService {
  private readonly logger = new Logger(BatchesService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly orm: MikroORM,
    private readonly cursors: CursorCodec,
    private readonly qrCodes: QrCodesService,
    private readonly runner: BatchRunnerService,
    @InjectQueue(QUEUES.batches) private readonly queue: Queue,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.passwords = itemPasswordBox(config.appSecret);
  }

  /** Seals items' link-control passwords while they wait (batch-request.ts sealItemPassword). */
  private readonly passwords: SecretBox;

  /** Accepts the batch: its design (a template's, the body's over it) resolved once, the plan's room for its dynamic
   * items (and, apart, its dynamic GS1 items) checked and reserved until the batch finishes, every item stored pending with a reserved id. */
  async create(auth: AuthContext, body: CreateBatchDto): Promise<BatchDto> {
    const design = body.design || body.template_id ? await this.qrCodes.checkedDesignOf(auth, { design: body.design, template_id: body.template_id }) : null;
    const dynamicCount = body.items.filter((i) => itemKind(i) === 'dynamic').length;
    const gs1Count = body.items.filter((i) => isDynamicGs1Item(i)).length;
    await assertQueueReachable(this.queue, 'Batch processing');
    const now = new Date();
    const batch = this.em.create(
      Batch,
      { id: newId('batch'), organizationId: auth.organizationId, environment: auth.environment, design, totalCount: body.items.length, createdAt: now, updatedAt: now },
      { persist: false },
    );
    const items = body.items.map((item, idx) =>
      this.em.create(
        BatchItem,
        {
          batchId: batch.id,
          idx,
          name: typeof item.name === 'string' ? item.name : null,
          type: itemType(item),
          request: sealItemPassword(item, this.passwords, itemPasswordAad(batch.id, idx)),
          qrCodeId: newId(isStaticItem(item) ? 'sqr' : 'qr'),
        },
        { persist: false },
      ),
    );
    await this.em.transactional(async (em) => {
      if (dynamicCount > 0) await assertRoomFor(em, auth, 'dynamic', dynamicCount);
      if (gs1Count > 0) await assertRoomFor(em, auth, gs1Kind.planCount, gs1Count);
      await em.insert(Batch, batch);
      for (let i = 0; i < items.length; i += 500) await em.insertMany(BatchItem, items.slice(i, i + 500));
      await reserveCapacity(em, auth.organizationId, batch.id, dynamicCount, gs1Count);
    });
    // Redis lost since the check above: the stalled-batch sweeper enqueues the committed batch once it is back.
    await this.enqueue(batch.id, Math.min(JOBS_PER_BATCH, Math.ceil(items.length / CHUNK_SIZE))).catch((err: Error) =>
      this.logger.warn(`batch ${batch.id} not queued, left to the sweeper: ${err.message}`),
    );
    return presentBatch(batch, items.map((i) => ({ name: i.name ?? '', type: i.type ?? '', status: 'pending', qr_code_id: i.qrCodeId, error: null, gs1_code: null })));
  }

  /** `jobs` jobs for the batch, so that as many workers can share it. */
  async enqueue(batchId: string, jobs = 1, suffix = ''): Promise<void> {
    await this.queue.addBulk(
      Array.from({ length: jobs }, (_, n) => ({ name: PROCESS_BATCH_JOB, data: { batchId }, opts: { jobId: `batch:${batchId}${suffix}:${n}`, attempts: 1 } })),
    );
  }

  /** Full Batch objects, items included (docs/batches.md), newest first. */
  async list(auth: AuthContext, query: ListBatchesQueryDto) {
    const page = await pageByCreatedAt(this.em, Batch, { organizationId: auth.organizationId, environment: auth.environment }, { ...query }, this.cursors, (b) => b);
    const items = await this.itemRows(page.data.map((b) => b.id));
    return { ...page, data: page.data.map((b) => presentBatch(b, items.get(b.id) ?? [])) };
  }

  async find(auth: AuthContext, id: string): Promise<Batch> {
    const batch = /^batch_[0-9A-Za-z]+$/.test(id) ? await this.em.findOne(Batch, { id, organizationId: auth.organizationId, environment: auth.environment }) : null;
    if (!batch) throw ApiException.notFound('batch', id);
    return batch;
  }

  async retrieve(auth: AuthContext, id: string): Promise<BatchDto> {
    const batch = await this.find(auth, id);
    return presentBatch(batch, (await this.itemRows([batch.id])).get(batch.id) ?? []);
  }

  /** The items of these batches in index order, only the columns the API shows (not the stored requests). `name` and
   * `type` are strings: an item sent without a name shows its code's name once the code exists (`Campaign <code>`, as
   * the manifest does), and '' before that or when it failed. */
  async itemRows(batchIds: string[]): Promise<Map<string, BatchItemRow[]>> {
    const out = new Map<string, BatchItemRow[]>(batchIds.map((id) => [id, []]));
    if (batchIds.length === 0) return out;
    const rows = await this.em.execute<(BatchItemRow & { batch_id: string })[]>(
      `select b.batch_id, coalesce(b.name, q.name, '') as name, coalesce(b.type, q.type, '') as type, b.status, b.qr_code_id, b.error, b.gs1_code
         from batch_items b left join qr_codes q on b.status = 'completed' and q.id = b.qr_code_id
        where b.batch_id in (${batchIds.map(() => '?').join(', ')}) order by b.batch_id, b.idx`,
      batchIds,
    );
    for (const { batch_id, ...row } of rows) out.get(batch_id)!.push(row);
    return out;
  }

  /** Runs the batch in this process (the worker's job; tests call it to resume a batch by hand). */
  process(batchId: string): Promise<void> {
    return this.runner.run(batchId);
  }

  /** Batches still processing with pending items nobody holds (their worker died, or their jobs were lost): queued
   * again. Claims run out after BATCH_CLAIM_TTL_MS, so this finds a killed worker's batch soon after. */
  async resumeStalled(): Promise<number> {
    const rows = await this.orm.em.fork().execute<{ id: string }[]>(
      `select b.id from batches b
        where b.status = 'processing'
          and ((b.updated_at < now() - interval '2 seconds'
                and exists (select 1 from batch_items i where i.batch_id = b.id and i.status = 'pending' and (i.claimed_until is null or i.claimed_until < now())))
               -- every item recorded but the batch never completed (its worker died in between)
               or (b.updated_at < now() - interval '1 minute' and not exists (select 1 from batch_items i where i.batch_id = b.id and i.status = 'pending')))
        limit 100`,
    );
    const bucket = Math.floor(Date.now() / 10_000);
    for (const r of rows) await this.enqueue(r.id, 1, `:resume:${bucket}`);
    return rows.length;
  }
}
