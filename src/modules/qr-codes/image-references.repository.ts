import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * References from codes to stored objects (SVG images, logos: content-addressed, so identical codes share them), the
 * pins of writers about to reference one (`storage_pins`) and the queue of objects to delete (`storage_deletes`), all
 * owned here. Every decision about one key runs under that key's transaction-scoped advisory lock, so a release, a
 * sweep, a pin and a writer committing a new reference never interleave, and "is the key still used" is an index probe
 * (qr_codes_image_key_idx, qr_codes_logo_key_idx, the pins' primary key).
 *
 * A writer: pinKeys (committed) → stores the object → the transaction inserting its code calls holdKeys → unpinKeys.
 * A delete due while the pin lives waits for it; one due after it finds the code's reference.
 */

/** Locks `keys` (sorted, so two transactions never wait on each other in a cycle) until the transaction ends. */
async function lockKeys(tx: EntityManager, keys: readonly string[]): Promise<void> {
  for (const key of [...new Set(keys)].sort()) await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 7431))', [key]);
}

const UNREFERENCED = `not exists (select 1 from qr_codes where image_key = k) and not exists (select 1 from qr_codes where logo_key = k)`;
const PINNED_UNTIL = `(select max(until) from storage_pins where key = k and until > now())`;

/** How long a pin holds at most: far longer than a writer takes from storing an object to committing its code (a batch
 * pins its logo for its whole run), so only a writer that died lets it run out. */
export const PIN_TTL_SECONDS = 3600;

/**
 * Before a writer stores objects it is about to reference: pins `keys` for `token` (in its own committed transaction,
 * under the keys' locks, so a sweep of them that already began has finished, and every later one sees the pin). Each
 * key is also queued for deletion when the pin runs out: if the writer dies before referencing it, the object goes then.
 */
export async function pinKeys(em: EntityManager, token: string, keys: readonly string[], ttlSeconds = PIN_TTL_SECONDS): Promise<void> {
  const unique = [...new Set(keys.filter((k) => k))];
  if (!unique.length) return;
  await em.transactional(async (tx) => {
    await lockKeys(tx, unique);
    await tx.execute(
      `insert into storage_pins (key, token, until) select unnest(array[?]::text[]), ?, now() + make_interval(secs => ?)
         on conflict (key, token) do update set until = excluded.until`,
      [unique, token, ttlSeconds],
    );
    await tx.execute(
      `insert into storage_deletes (key, due_at) select unnest(array[?]::text[]), now() + make_interval(secs => ?)
         on conflict (key) do update set due_at = greatest(storage_deletes.due_at, excluded.due_at)`,
      [unique, ttlSeconds],
    );
  });
}

/** The writer is done (its codes committed, or it gave up): its pins go. Returns the keys it had pinned that are still
 * queued for deletion (those it did not reference): the caller deletes them now (sweepStorageDeletes). */
export async function unpinKeys(em: EntityManager, token: string): Promise<string[]> {
  const rows = await em.execute<{ key: string }[]>(
    `with gone as (delete from storage_pins where token = ? returning key)
     select distinct gone.key from gone join storage_deletes d on d.key = gone.key`,
    [token],
  );
  return rows.map((r) => r.key);
}

/** Queues a delete of each key no code refers to (in one transaction, under the keys' locks); returns those queued.
 * A key already queued stays queued (its attempt count kept). A key a writer has pinned is queued too: the sweep waits
 * for the pin, then deletes it unless the writer referenced it. */
export async function queueUnusedKeys(em: EntityManager, keys: readonly string[]): Promise<string[]> {
  const unique = [...new Set(keys.filter((k) => k))];
  if (!unique.length) return [];
  return em.transactional(async (tx) => {
    await lockKeys(tx, unique);
    const rows = await tx.execute<{ k: string }[]>(`select k from unnest(array[?]::text[]) as k where ${UNREFERENCED}`, [unique]);
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
 * Deletes queued objects: the given keys (now), or every row that is due (the worker's sweep, up to `limit`, which also
 * drops pins that ran out). Each key in its own transaction under its lock: still unused → storage delete → row gone;
 * used again → row gone, object kept; pinned by a writer → the row waits until the pin runs out (unpinKeys hands it
 * back sooner); storage failed → the row stays with attempts + 1, the error and the next due time. Returns the keys
 * deleted.
 */
export async function sweepStorageDeletes(
  em: EntityManager,
  deleteObject: (key: string) => Promise<void>,
  opts: { keys?: readonly string[]; limit?: number } = {},
): Promise<{ deleted: string[]; failed: string[] }> {
  const keys =
    opts.keys ??
    (await em.execute<{ key: string }[]>('select key from storage_deletes where due_at <= now() order by due_at limit ?', [opts.limit ?? 500])).map((r) => r.key);
  if (!opts.keys) await em.execute('delete from storage_pins where until <= now()');
  const deleted: string[] = [];
  const failed: string[] = [];
  for (const key of keys) {
    await em.transactional(async (tx) => {
      await lockKeys(tx, [key]);
      const [row] = await tx.execute<{ attempts: number; unused: boolean; pinned_until: Date | null }[]>(
        `select attempts, ${UNREFERENCED} as unused, ${PINNED_UNTIL} as pinned_until from storage_deletes, (select ?::text as k) as x where key = x.k`,
        [key],
      );
      if (!row) return; // deleted meanwhile, or taken back by a code
      if (!row.unused) {
        await tx.execute('delete from storage_deletes where key = ?', [key]);
        return;
      }
      if (row.pinned_until) {
        // A writer stored it and is about to reference it: decided once the writer is done (or its pin ran out).
        await tx.execute('update storage_deletes set due_at = greatest(due_at, ?) where key = ?', [row.pinned_until, key]);
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
