import type { EntityManager } from '@mikro-orm/postgresql';

/** Statements on `batch_items` for the worker: claims, outcomes, what is left. Each runs on the caller's EntityManager. */

export interface ClaimedItem {
  idx: number;
  request: Record<string, unknown>;
  qr_code_id: string;
  attempts: number;
}

export interface ItemOutcome {
  idx: number;
  status: 'completed' | 'failed';
  error: string | null;
  gs1_code: string | null;
}

/** Claims up to `limit` pending items nobody holds (never claimed, or their claim ran out: a killed worker's), in index
 * order, for `ttlMs`. Two workers never claim the same item at once (`for update skip locked`).
 *
 * The pick is a MATERIALIZED CTE, evaluated exactly once. Written as `update … where idx in (select … limit ? for update
 * skip locked)`, PostgreSQL may plan a nested-loop semi join that runs the subquery again for every row of the batch:
 * each run skips the rows this very statement has just updated and returns the next `limit`, so one claim took every
 * item of the batch (seen once `batch_items` had statistics in which a new batch looks small). The whole batch then ran
 * as one chunk, one transaction: no progress visible until the end, and other workers had nothing to share. */
export async function claimItems(em: EntityManager, batchId: string, claim: string, limit: number, ttlMs: number): Promise<ClaimedItem[]> {
  const rows = await em.execute<ClaimedItem[]>(
    `with picked as materialized (
       select idx from batch_items
        where batch_id = ? and status = 'pending' and (claimed_until is null or claimed_until < now())
        order by idx limit ? for update skip locked)
     update batch_items b set claim = ?, claimed_until = now() + (? || ' milliseconds')::interval, attempts = b.attempts + 1
       from picked
      where b.batch_id = ? and b.idx = picked.idx
      returning b.idx, b.request, b.qr_code_id, b.attempts`,
    [batchId, limit, claim, ttlMs, batchId],
  );
  return rows.sort((a, b) => a.idx - b.idx);
}

/** Locks the items of `idxs` that are still pending under this claim (a claim that ran out may have been taken over):
 * only those may be recorded by the caller's transaction. */
export async function lockClaimed(em: EntityManager, batchId: string, claim: string, idxs: number[]): Promise<Set<number>> {
  if (idxs.length === 0) return new Set();
  const rows = await em.execute<{ idx: number }[]>(
    `select idx from batch_items where batch_id = ? and idx in (${idxs.map(() => '?').join(', ')}) and status = 'pending' and claim = ? for update`,
    [batchId, ...idxs, claim],
  );
  return new Set(rows.map((r) => r.idx));
}

/** Records outcomes (one statement) and adds them to the batch's counters. */
export async function recordOutcomes(em: EntityManager, batchId: string, outcomes: ItemOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await em.execute(
    // A settled item's link-control password (sealed while it waited) goes: nothing of it stays in the row.
    `update batch_items b set status = v.status, error = v.error, gs1_code = v.gs1_code, claim = null, claimed_until = null, request = b.request - 'password'
       from json_to_recordset(?::json) as v(idx integer, status text, error text, gs1_code text)
      where b.batch_id = ? and b.idx = v.idx`,
    [JSON.stringify(outcomes), batchId],
  );
  const completed = outcomes.filter((o) => o.status === 'completed').length;
  await em.execute('update batches set completed_count = completed_count + ?, error_count = error_count + ?, updated_at = now() where id = ?', [
    completed,
    outcomes.length - completed,
    batchId,
  ]);
}

/** Gives items back (their code hit a unique index: retried with a new short code by whoever claims them next). */
export async function releaseItems(em: EntityManager, batchId: string, idxs: number[]): Promise<void> {
  if (idxs.length === 0) return;
  await em.execute(`update batch_items set claim = null, claimed_until = null where batch_id = ? and idx in (${idxs.map(() => '?').join(', ')})`, [
    batchId,
    ...idxs,
  ]);
}

/** Pending items left, and when the earliest claim on them runs out (null when some are unclaimed). */
export async function pendingLeft(em: EntityManager, batchId: string): Promise<{ left: number; nextFreeAt: Date | null }> {
  const [row] = await em.execute<{ left: string; unclaimed: string; next: Date | null }[]>(
    `select count(*) as left, count(*) filter (where claimed_until is null or claimed_until < now()) as unclaimed, min(claimed_until) as next
       from batch_items where batch_id = ? and status = 'pending'`,
    [batchId],
  );
  return { left: Number(row.left), nextFreeAt: Number(row.unclaimed) > 0 ? null : row.next ? new Date(row.next) : null };
}
