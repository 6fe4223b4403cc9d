import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bull';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RequestContext } from '@mikro-orm/core';
import type { Queue } from 'bull';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { batchItems } from '../../common/metrics/metrics';
import { CursorCodec } from '../../common/http/cursor';
import { pageByCreatedAt } from '../../common/http/pagination';
import { newId } from '../../common/ids';
import { assertQueueReachable, QUEUES } from '../../common/queue/queues';
import { findOrganization } from '../accounts/organizations.repository';
import { PLAN_CATALOG, PlanCatalog } from '../accounts/plans';
import { EventsService } from '../events/events.service';
import { codeExists } from '../qr-codes/qr-codes.repository';
import { parseCreateBody } from '../qr-codes/dto/create-body';
import { QrCodesService } from '../qr-codes/qr-codes.service';
import { parseDesign } from '../rendering/design';
import { Batch, BatchItem } from './batch.entity';
import type { BatchDto, CreateBatchDto, ListBatchesQueryDto } from './batches.dto';

export const PROCESS_BATCH_JOB = 'process-batch';

/** target.type when an item leaves it out: inferred from the fields it carries. */
export function inferTargetType(target: Record<string, unknown>): string | undefined {
  if (typeof target.type === 'string') return target.type;
  if ('ssid' in target) return 'wifi';
  if ('title' in target && 'start' in target) return 'event';
  if ('email' in target) return 'email';
  if ('phone' in target) return 'sms';
  if ('text' in target) return 'text';
  if ('destination' in target) return 'url';
  return undefined;
}

function itemKind(item: Record<string, unknown>): 'dynamic' | 'static' | 'gs1' | 'other' {
  const t = item.type ?? 'dynamic';
  return t === 'dynamic' || t === 'static' || t === 'gs1' ? t : 'other';
}

export function presentBatch(batch: Batch, items?: BatchItem[]): BatchDto {
  const out: BatchDto = {
    id: batch.id,
    object: 'batch',
    status: batch.status,
    total_count: batch.totalCount,
    completed_count: batch.completedCount,
    error_count: batch.errorCount,
    items: [],
    created_at: batch.createdAt.toISOString(),
  };
  if (items) {
    out.items = items.map((i) => ({
      name: i.name,
      type: i.type,
      status: i.status,
      qr_code_id: i.status === 'completed' ? i.qrCodeId : null,
      error: i.error,
      gs1_code: i.gs1Code,
    }));
  } else delete (out as Partial<BatchDto>).items;
  return out;
}

@Injectable()
export class BatchesService {
  private readonly logger = new Logger(BatchesService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly orm: MikroORM,
    private readonly cursors: CursorCodec,
    private readonly qrCodes: QrCodesService,
    private readonly events: EventsService,
    @Inject(PLAN_CATALOG) private readonly plans: PlanCatalog,
    @InjectQueue(QUEUES.batches) private readonly queue: Queue,
  ) {}

  async create(auth: AuthContext, body: CreateBatchDto): Promise<BatchDto> {
    if (body.template_id) throw new ApiException('not_found', `No such template: '${body.template_id}'`, { field: 'template_id' });
    // The batch design applies to every item: refuse a bad one now, not 1,000 times later.
    const design = body.design === undefined || body.design === null ? null : parseDesign(body.design);
    const dynamicCount = body.items.filter((i) => itemKind(i) === 'dynamic').length;
    await assertQueueReachable(this.queue, 'Batch processing');
    const batch = await this.em.transactional(async (em) => {
      if (dynamicCount > 0) {
        const current = await this.qrCodes.countLiveDynamic(em, auth.organizationId);
        // Items of batches still processing are about to become live codes too.
        const [row] = await em.execute<{ n: string }[]>(
          `select count(*) as n from batch_items i join batches b on b.id = i.batch_id
            where b.organization_id = ? and b.status = 'processing' and i.status = 'pending' and i.qr_code_id like 'qr\\_%'`,
          [auth.organizationId],
        );
        const reserved = Number(row.n);
        if (current + reserved + dynamicCount > auth.plan.dynamic_qr_limit) {
          throw new ApiException(
            'plan_limit_reached',
            `This batch has ${dynamicCount} dynamic item(s) but the ${auth.plan.id} plan has room for ${Math.max(0, auth.plan.dynamic_qr_limit - current - reserved)} more`,
            { limit: auth.plan.dynamic_qr_limit, current_count: current + reserved, requested: dynamicCount, plan_id: auth.plan.id },
          );
        }
      }
      const batch = em.create(Batch, {
        id: newId('batch'),
        organizationId: auth.organizationId,
        environment: auth.environment,
        design: design as unknown as Record<string, unknown> | null,
        totalCount: body.items.length,
      });
      // Items reference the batch: the batch row goes first (the entities declare no relation to order them by).
      await em.flush();
      body.items.forEach((item, idx) => {
        const target = item.target && typeof item.target === 'object' && !Array.isArray(item.target) ? (item.target as Record<string, unknown>) : null;
        em.create(BatchItem, {
          batchId: batch.id,
          idx,
          name: typeof item.name === 'string' ? item.name : null,
          type: itemKind(item) === 'gs1' ? 'gs1' : target ? (inferTargetType(target) ?? null) : null,
          request: item,
          qrCodeId: newId(itemKind(item) === 'static' ? 'sqr' : 'qr'),
        });
      });
      return batch;
    });
    // Redis lost since the check above: the stalled-batch sweeper enqueues the committed batch once it is back.
    await this.enqueue(batch.id).catch((err: Error) => this.logger.warn(`batch ${batch.id} not queued, left to the sweeper: ${err.message}`));
    const items = await this.em.find(BatchItem, { batchId: batch.id }, { orderBy: { idx: 'asc' } });
    return presentBatch(batch, items);
  }

  async enqueue(batchId: string, suffix = ''): Promise<void> {
    await this.queue.add(PROCESS_BATCH_JOB, { batchId }, { jobId: `batch:${batchId}${suffix}`, attempts: 1 });
  }

  list(auth: AuthContext, query: ListBatchesQueryDto) {
    return pageByCreatedAt(this.em, Batch, { organizationId: auth.organizationId, environment: auth.environment }, { ...query }, this.cursors, (b) => presentBatch(b));
  }

  async find(auth: AuthContext, id: string): Promise<Batch> {
    const batch = /^batch_[0-9A-Za-z]+$/.test(id) ? await this.em.findOne(Batch, { id, organizationId: auth.organizationId, environment: auth.environment }) : null;
    if (!batch) throw ApiException.notFound('batch', id);
    return batch;
  }

  async retrieve(auth: AuthContext, id: string): Promise<BatchDto> {
    const batch = await this.find(auth, id);
    const items = await this.em.find(BatchItem, { batchId: batch.id }, { orderBy: { idx: 'asc' } });
    return presentBatch(batch, items);
  }

  async items(batch: Batch): Promise<BatchItem[]> {
    return this.em.find(BatchItem, { batchId: batch.id }, { orderBy: { idx: 'asc' } });
  }

  /** Worker: creates every pending item, one at a time. Safe to run again after a crash (reserved ids) and
   * concurrently (an item's code is created at most once). */
  async process(batchId: string): Promise<void> {
    await RequestContext.create(this.orm.em, async () => {
      const em = this.em;
      const batch = await em.findOne(Batch, { id: batchId });
      if (!batch || batch.status !== 'processing') return;
      try {
        const org = await findOrganization(em, batch.organizationId);
        if (!org) throw new Error(`the workspace ${batch.organizationId} of batch ${batch.id} is gone`);
        const auth: AuthContext = {
          organizationId: org.id,
          organizationName: org.name,
          keyId: `batch:${batch.id}`,
          keyPrefix: '',
          scopes: [],
          plan: this.plans[org.plan],
          environment: batch.environment,
        };
        const pending = await em.find(BatchItem, { batchId, status: 'pending' }, { orderBy: { idx: 'asc' } });
        // The batch design's logo is fetched once for every item; if it cannot be used, each item fails with why.
        let logo: { key: string | null } | { error: unknown } | undefined;
        if (pending.length > 0 && batch.design) {
          logo = await this.qrCodes.prepareDesignLogo(batch.design as Record<string, unknown>).then(
            (key) => ({ key }),
            (error: unknown) => ({ error }),
          );
        }
        for (const item of pending) await this.processItem(auth, batch, item, logo);
        // Kept only if some item's code uses it (every item may have failed).
        if (logo && 'key' in logo && logo.key) await this.qrCodes.releaseLogo(logo.key);
        await this.finish(batch);
      } catch (err) {
        this.logger.error(`batch ${batchId} failed: ${(err as Error).stack ?? err}`);
        await this.fail(batch, (err as Error).message);
      }
    });
  }

  private async processItem(auth: AuthContext, batch: Batch, item: BatchItem, logo?: { key: string | null } | { error: unknown }): Promise<void> {
    let status: 'completed' | 'failed' = 'completed';
    let error: string | null = null;
    let gs1Code: string | null = null;
    if (!(await codeExists(this.em.fork(), item.qrCodeId))) {
      try {
        const request = { ...item.request };
        delete request.design; // the batch design applies to every item
        if (request.target && typeof request.target === 'object' && !Array.isArray(request.target)) {
          const target = request.target as Record<string, unknown>;
          request.target = { ...target, type: inferTargetType(target) };
        }
        // A standard or a GS1 item (`type: "gs1"`), checked and created exactly as POST /v1/qr-codes does.
        const dto = await parseCreateBody(request);
        if (logo && 'error' in logo) throw logo.error;
        await this.qrCodes.create(auth, dto, {
          id: item.qrCodeId,
          design: (batch.design as Record<string, unknown> | null) ?? undefined,
          logoKey: logo && 'key' in logo ? logo.key : undefined,
        });
      } catch (err) {
        status = 'failed';
        if (err instanceof ApiException) {
          error = err.extras.field && !err.message.includes(err.extras.field) ? `${err.extras.field}: ${err.message}` : err.message;
          gs1Code = err.extras.gs1_code ?? null;
        } else {
          this.logger.error(`batch ${batch.id} item ${item.idx}: ${(err as Error).stack ?? err}`);
          error = 'Internal error while creating this item';
        }
      }
    }
    const finished = await this.em.transactional(async (em) => {
      const updated = await em.nativeUpdate(BatchItem, { batchId: batch.id, idx: item.idx, status: 'pending' }, { status, error, gs1Code });
      if (updated === 1) {
        const column = status === 'completed' ? 'completed_count' : 'error_count';
        await em.execute(`update batches set ${column} = ${column} + 1, updated_at = now() where id = ?`, [batch.id]);
      }
      return updated === 1;
    });
    if (finished) batchItems.inc({ outcome: status });
  }

  private async finish(batch: Batch): Promise<void> {
    await this.em.transactional(async (em) => {
      const [left] = await em.execute<{ n: string }[]>(`select count(*) as n from batch_items where batch_id = ? and status = 'pending'`, [batch.id]);
      if (Number(left.n) > 0) return;
      const rows = await em.execute<{ id: string }[]>(
        `update batches set status = 'completed', finished_at = now(), updated_at = now() where id = ? and status = 'processing' returning id`,
        [batch.id],
      );
      if (rows.length === 0) return;
      const fresh = await em.findOneOrFail(Batch, { id: batch.id }, { refresh: true });
      await this.events.emit(em, batch, 'batch.completed', presentBatch(fresh));
    });
  }

  private async fail(batch: Batch, reason: string): Promise<void> {
    await this.em.fork().transactional(async (em) => {
      const rows = await em.execute<{ id: string }[]>(
        `update batches set status = 'failed', failure_reason = ?, finished_at = now(), updated_at = now() where id = ? and status = 'processing' returning id`,
        [reason.slice(0, 500), batch.id],
      );
      if (rows.length === 0) return;
      const fresh = await em.findOneOrFail(Batch, { id: batch.id }, { refresh: true });
      await this.events.emit(em, batch, 'batch.failed', presentBatch(fresh));
    });
  }

  /** Batches still processing whose worker went quiet (killed mid-batch): run them again. */
  async resumeStalled(olderThanMs: number): Promise<number> {
    const rows = await this.orm.em.fork().execute<{ id: string }[]>(
      `select id from batches where status = 'processing' and updated_at < now() - (? || ' milliseconds')::interval limit 100`,
      [olderThanMs],
    );
    const minute = Math.floor(Date.now() / 60_000);
    for (const r of rows) await this.enqueue(r.id, `:resume:${minute}`);
    return rows.length;
  }
}
