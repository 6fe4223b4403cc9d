import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { RequestContext } from '@mikro-orm/core';
import type { AuthContext } from '../../common/auth/auth-context';
import type { SecretBox } from '../../common/crypto/secret-box';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { batchItems } from '../../common/metrics/metrics';
import { findOrganization } from '../accounts/organizations.repository';
import { PLAN_CATALOG, PlanCatalog } from '../accounts/plans';
import { gs1Kind } from '../gs1/gs1-kind';
import { EventsService } from '../events/events.service';
import { lockCapacity, releaseReservation, settleReservation } from '../qr-codes/capacity.repository';
import { CodeDraft, QrCodeCreationService, type StoragePins } from '../qr-codes/qr-code-creation.service';
import type { QrCode } from '../qr-codes/qr-code.entity';
import { planCountOf, planLimitError } from '../qr-codes/qr-code-limits';
import { existingCodeIds } from '../qr-codes/qr-codes.repository';
import { QrCodesService } from '../qr-codes/qr-codes.service';
import { storedDesign, type Design } from '../rendering/design';
import { Batch } from './batch.entity';
import { ClaimedItem, claimItems, ItemOutcome, lockClaimed, pendingLeft, recordOutcomes, releaseItems } from './batch-items.repository';
import { isDynamicGs1Item, itemBody, itemError, itemKind, itemPasswordAad, itemPasswordBox, openItemPassword } from './batch-request';
import { presentBatch } from './batch.presenter';

/** Items a worker claims, prepares, draws and inserts together: one transaction, one capacity check, one multi-row
 * insert and one qr.created fan-out per chunk. */
export const CHUNK_SIZE = 50;
/** An item whose chunk was claimed this many times without an outcome (its worker died each time) fails. */
export const MAX_ITEM_ATTEMPTS = 5;

type Prepared = { item: ClaimedItem; draft: CodeDraft; code?: QrCode };
type Drawn = Prepared & { code: QrCode };

/**
 * The worker side of batches (docs/batches.md). Any number of workers run the same batch at once: each claims chunks
 * of pending items for a lease, and records a chunk only while its claim still holds, so every item is created once.
 * A killed worker's chunk is claimed again when its lease runs out.
 */
@Injectable()
export class BatchRunnerService {
  private readonly logger = new Logger(BatchRunnerService.name);

  constructor(
    private readonly orm: MikroORM,
    private readonly qrCodes: QrCodesService,
    private readonly creation: QrCodeCreationService,
    private readonly events: EventsService,
    @Inject(PLAN_CATALOG) private readonly plans: PlanCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.passwords = itemPasswordBox(config.appSecret);
  }

  /** Opens items' sealed link-control passwords (batch-request.ts sealItemPassword). */
  private readonly passwords: SecretBox;

  /** Works on the batch until no pending item is left, then completes it (whichever worker gets there first). */
  async run(batchId: string): Promise<void> {
    await RequestContext.create(this.orm.em, async () => {
      const em = this.orm.em.fork() as EntityManager;
      const batch = await em.findOne(Batch, { id: batchId });
      if (!batch || batch.status !== 'processing') return;
      const logos = new Map<string, Promise<string | null>>();
      // Everything this run stores (its logo, each chunk's images) is pinned until the run ends (see QrCodeImagesService).
      const pins = this.creation.pins();
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
        const design = batch.design ? storedDesign(batch.design) : undefined;
        const claim = randomUUID();
        for (;;) {
          const items = await claimItems(em, batch.id, claim, CHUNK_SIZE, this.config.batchClaimTtlMs);
          if (items.length > 0) {
            await this.runChunk(em, auth, batch, claim, items, design, logos, pins);
            continue;
          }
          const { left, nextFreeAt } = await pendingLeft(em, batch.id);
          if (left === 0) break;
          // Everything left is claimed by other workers: wait for them, and take over what a dead one leaves.
          const [current] = await em.execute<{ status: string }[]>('select status from batches where id = ?', [batch.id]);
          if (current?.status !== 'processing') return;
          const wait = nextFreeAt ? nextFreeAt.getTime() - Date.now() + 20 : 0;
          await new Promise((r) => setTimeout(r, Math.min(Math.max(wait, 50), 500)));
        }
        const finished = await this.finish(em, batch.id);
        // Nothing uses the batch's logo when no item was created: it goes (a content-addressed key, shared only by codes).
        if (finished && finished.completedCount === 0) {
          for (const key of logos.values()) {
            const k = await key.catch(() => null);
            if (k) await this.creation.discard([], [k]);
          }
        }
      } catch (err) {
        this.logger.error(`batch ${batchId} failed: ${(err as Error).stack ?? err}`);
        await this.fail(batch.id, (err as Error).message);
      } finally {
        await this.creation.unpin(pins);
      }
    });
  }

  private async runChunk(em: EntityManager, auth: AuthContext, batch: Batch, claim: string, items: ClaimedItem[], design: Design | undefined, logos: Map<string, Promise<string | null>>, pins: StoragePins): Promise<void> {
    const outcomes = new Map<number, ItemOutcome>();
    const failed = (item: ClaimedItem, err: unknown) => {
      const known = itemError(err);
      if (!known) this.logger.error(`batch ${batch.id} item ${item.idx}: ${(err as Error).stack ?? err}`);
      outcomes.set(item.idx, { idx: item.idx, status: 'failed', error: known?.error ?? 'Internal error while creating this item', gs1_code: known?.gs1_code ?? null });
    };
    // 1. Each item through the same validation as POST /v1/qr-codes; one bad item fails alone.
    const prepared: Prepared[] = [];
    for (const item of items) {
      if (item.attempts > MAX_ITEM_ATTEMPTS) {
        outcomes.set(item.idx, { idx: item.idx, status: 'failed', error: `The item could not be created: its worker stopped ${MAX_ITEM_ATTEMPTS} times while creating it`, gs1_code: null });
        continue;
      }
      try {
        const request = openItemPassword(item.request, this.passwords, itemPasswordAad(batch.id, item.idx));
        prepared.push({ item, draft: await this.qrCodes.prepare(auth, await itemBody(request), { design, batchId: batch.id }) });
      } catch (err) {
        failed(item, err);
      }
    }
    // 2. Logos (fetched once per batch run) and images, outside any transaction.
    await Promise.all(
      prepared.map(async (p) => {
        try {
          const url = p.draft.design.logo?.url;
          let logoKey: string | null = null;
          if (url) {
            if (!logos.has(url)) logos.set(url, this.creation.logoOf(p.draft, pins));
            logoKey = await logos.get(url)!;
          }
          p.code = await this.creation.render(auth, p.draft, logoKey, pins, p.item.qr_code_id);
        } catch (err) {
          failed(p.item, err);
        }
      }),
    );
    const drawn = prepared.filter((p): p is Drawn => p.code !== undefined);
    // 3. One transaction: what is still ours, the plan, one insert, one fan-out, the outcomes.
    let inserted: QrCode[] = [];
    try {
      const done = await em.transactional(async (tx) => {
        const mine = await lockClaimed(tx, batch.id, claim, items.map((i) => i.idx));
        const ours = drawn.filter((p) => mine.has(p.item.idx));
        const toInsert: Drawn[] = [];
        // The batch's own reservations are left out: this chunk is what they were held for.
        const { live, reserved, gs1Live: gs1Current, gs1Reserved } = await lockCapacity(tx, auth.organizationId, batch.id);
        let room = auth.plan.dynamic_qr_limit - live - reserved;
        // Dynamic GS1 codes count against the plan's GS1 limit, apart.
        const gs1Live = gs1Current + gs1Reserved;
        let gs1Room = auth.plan.gs1_limit - gs1Live;
        const existing = await existingCodeIds(tx, ours.map((p) => p.code.id));
        for (const p of ours) {
          const which = planCountOf(p.draft);
          // A code created before its item was recorded (by an earlier version's worker) is not created again.
          if (existing.has(p.code.id)) outcomes.set(p.item.idx, { idx: p.item.idx, status: 'completed', error: null, gs1_code: null });
          else if (which === 'dynamic' && room-- <= 0) failed(p.item, planLimitError(auth, live + reserved));
          else if (which === gs1Kind.planCount && gs1Room-- <= 0) failed(p.item, planLimitError(auth, gs1Live, 1, gs1Kind.planCount));
          else toInsert.push(p);
        }
        const result = await this.creation.insert(tx, auth, toInsert.map((p) => p.code));
        // A conflicted item (a short code taken meanwhile, or a GS1 identifier another item of the chunk claimed) goes
        // back to pending: its next attempt draws a new short code, or fails in prepare with gs1_identifier_taken.
        const conflicted = new Set(result.conflicted);
        for (const { code, error } of result.refused) failed(toInsert.find((p) => p.code === code)!.item, error);
        const refused = new Set(result.refused.map((r) => r.code));
        for (const p of toInsert) {
          if (!conflicted.has(p.code) && !refused.has(p.code)) outcomes.set(p.item.idx, { idx: p.item.idx, status: 'completed', error: null, gs1_code: null });
        }
        const recorded = [...outcomes.values()].filter((o) => mine.has(o.idx));
        await recordOutcomes(tx, batch.id, recorded);
        await releaseItems(tx, batch.id, toInsert.filter((p) => conflicted.has(p.code)).map((p) => p.item.idx));
        const settled = new Set(recorded.map((o) => o.idx));
        const settledItems = items.filter((i) => settled.has(i.idx));
        await settleReservation(tx, batch.id, settledItems.filter((i) => itemKind(i.request) === 'dynamic').length, settledItems.filter((i) => isDynamicGs1Item(i.request)).length);
        return { inserted: result.inserted, recorded };
      });
      inserted = done.inserted;
      for (const o of done.recorded) batchItems.inc({ outcome: o.status });
    } finally {
      const kept = new Set(inserted);
      await this.creation.discard(drawn.filter((p) => !kept.has(p.code)).map((p) => p.code));
    }
    await Promise.all(inserted.map((code) => this.qrCodes.invalidate(code)));
  }

  /** Completes the batch once nothing is pending; emits batch.completed once (the status update decides who). */
  private async finish(em: EntityManager, batchId: string): Promise<Batch | null> {
    return em.transactional(async (tx) => {
      const rows = await tx.execute<{ id: string }[]>(
        `update batches set status = 'completed', finished_at = now(), updated_at = now()
          where id = ? and status = 'processing' and not exists (select 1 from batch_items where batch_id = ? and status = 'pending') returning id`,
        [batchId, batchId],
      );
      if (rows.length === 0) return null;
      await releaseReservation(tx, batchId);
      const fresh = await tx.findOneOrFail(Batch, { id: batchId }, { refresh: true });
      await this.events.emit(tx, fresh, 'batch.completed', presentBatch(fresh));
      return fresh;
    });
  }

  /** A global failure: the batch stops, its reservation goes, batch.failed is emitted once. */
  async fail(batchId: string, reason: string): Promise<void> {
    await this.orm.em.fork().transactional(async (em) => {
      const rows = await em.execute<{ id: string }[]>(
        `update batches set status = 'failed', failure_reason = ?, finished_at = now(), updated_at = now() where id = ? and status = 'processing' returning id`,
        [reason.slice(0, 500), batchId],
      );
      if (rows.length === 0) return;
      await releaseReservation(em, batchId);
      const fresh = await em.findOneOrFail(Batch, { id: batchId }, { refresh: true });
      await this.events.emit(em, fresh, 'batch.failed', presentBatch(fresh));
    });
  }
}
