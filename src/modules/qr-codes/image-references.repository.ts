import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * References from codes to stored objects (SVG images, logos: content-addressed, so identical codes share them) and the
 * queue of objects to delete (`storage_deletes`, owned here). Every decision about one key runs under that key's
 * transaction-scoped advisory lock, so a release, a sweep and a writer committing a new reference never interleave,
 * and "is the key still used" is an index probe (qr_codes_image_key_idx, qr_codes_logo_key_idx).
 */

/** Locks `keys` (sorted, so two transactions never wait on each other in a cycle) until the transaction ends. */
async function lockKeys(tx: EntityManager, keys: readonly string[]): Promise<void> {
  for (const key of [...new Set(keys)].sort()) await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 7431))', [key]);
}

const UNUSED = `not exists (select 1 from qr_codes where image_key = k) and not exists (select 1 from qr_codes where logo_key = k)`;

/** Queues a delete of each key no code refers to (in one transaction, under the keys' locks); returns those queued.
 * A key already queued stays queued (its attempt count kept). */
export async function queueUnusedKeys(em: EntityManager, keys: readonly string[]): Promise<string[]> {
  const unique = [...new Set(keys.filter((k) => k))];
  if (!unique.length) return [];
  return em.transactional(async (tx) => {
    await lockKeys(tx, unique);
    const rows = await tx.execute<{ k: string }[]>(`select k from unnest(array[?]::text[]) as k where ${UNUSED}`, [unique]);
    const unused = rows.map((r) => r.k);
    if (unused.length) {
      await tx.execute(`insert into storage_deletes (key) select unnest(array[?]::text[]) on conflict (key) do nothing`, [unused]);
    }
    return unused;
  });
}

/** Inside the transaction that commits a code referring to `keys`: waits out any sweep of them and drops their queued
 * deletes, so a key a code uses again is never deleted. */
export async function holdKeys(tx: EntityManager, keys: readonly (string | null | undefined)[]): Promise<void> {
  const unique = [...new Set(keys.filter((k): k is string => !!k))];
  if (!unique.length) return;
  await lockKeys(tx, unique);
  await tx.execute('delete from storage_deletes where key in (?)', [unique]);
}

/** Seconds until the next attempt after `attempts` failed ones: 1 min, 4 min, 16 min, … capped at 6 hours. */
export const retryDelaySeconds = (attempts: number): number => Math.min(6 * 3600, 60 * 4 ** Math.max(0, attempts - 1));

/**
 * Deletes queued objects: the given keys (now), or every row that is due (the worker's sweep, up to `limit`). Each key in
 * its own transaction under its lock: still unused → storage delete → row gone; used again → row gone, object kept;
 * storage failed → the row stays with attempts + 1, the error and the next due time. Returns the keys deleted.
 */
export async function sweepStorageDeletes(
  em: EntityManager,
  deleteObject: (key: string) => Promise<void>,
  opts: { keys?: readonly string[]; limit?: number } = {},
): Promise<{ deleted: string[]; failed: string[] }> {
  const keys =
    opts.keys ??
    (await em.execute<{ key: string }[]>('select key from storage_deletes where due_at <= now() order by due_at limit ?', [opts.limit ?? 500])).map((r) => r.key);
  const deleted: string[] = [];
  const failed: string[] = [];
  for (const key of keys) {
    await em.transactional(async (tx) => {
      await lockKeys(tx, [key]);
      const [row] = await tx.execute<{ attempts: number; unused: boolean }[]>(
        `select attempts, ${UNUSED} as unused from storage_deletes, (select ?::text as k) as x where key = x.k`,
        [key],
      );
      if (!row) return; // deleted meanwhile, or taken back by a code
      if (!row.unused) {
        await tx.execute('delete from storage_deletes where key = ?', [key]);
        return;
      }
      try {
        await deleteObject(key);
      } catch (err) {
        const attempts = row.attempts + 1;
        const message = err instanceof Error ? `${err.name}: ${err.message}`.slice(0, 500) : 'storage delete failed';
        await tx.execute('update storage_deletes set attempts = ?, last_error = ?, due_at = now() + make_interval(secs => ?) where key = ?', [
          attempts,
          message,
          retryDelaySeconds(attempts),
          key,
        ]);
        failed.push(key);
        return;
      }
      await tx.execute('delete from storage_deletes where key = ?', [key]);
      deleted.push(key);
    });
  }
  return { deleted, failed };
}
