import { DeadlockException, ForeignKeyConstraintViolationException, LockWaitTimeoutException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ScanContext, ScanRecord } from '../scan/scan-contract';
import type { EventsService } from '../events/events.service';
import { addScans, lockCodesForScans } from '../qr-codes/qr-codes.repository';

/** A stored scan as `insert … returning` gives it back. */
interface InsertedScan extends ScanContext {
  id: string;
  organization_id: string;
  qr_code_id: string;
  scanned_at: Date | string;
}

/** The qr.scanned payload: exactly the allowlist of docs/webhooks.md, nothing else. */
export interface ScannedEventData extends ScanContext {
  qr_code_id: string;
  scanned_at: string;
}

export function scannedEventData(s: InsertedScan): ScannedEventData {
  return {
    qr_code_id: s.qr_code_id,
    scanned_at: new Date(s.scanned_at).toISOString(),
    country: s.country,
    city: s.city,
    device: s.device,
    os: s.os,
    browser: s.browser,
    referrer: s.referrer,
    language: s.language,
  };
}

/**
 * One statement stores a whole entry, set-based:
 * - `ins` inserts the raw scans whose code still exists (a code purged meanwhile drops out of the join) and skips ids
 *   already stored (`on conflict do nothing`): re-reading an entry, or the same scan twice, changes nothing;
 * - `dims` lists each new scan once per dimension ('' = unknown) for both value rollups (a CTE read twice is
 *   computed once);
 * - only the rows `ins` really inserted feed the rollups (scan_days, scan_day_values, scan_value_totals) and, after
 *   it, the codes' counters (qr_codes.scan_count / last_scan_at, through qr-codes' addScans), so the counters stay
 *   exact under redelivery.
 * `codes` is the entry's codes as qr-codes' lockCodesForScans locked them just before, in id order: two workers
 * storing scans of the same codes queue up behind each other instead of deadlocking on the rollup rows.
 * Postgres runs every data-modifying CTE to completion even though the final select reads only `ins`.
 */
const STORE_SQL = `
with input as (
  select distinct on (r.id) r.*
    from jsonb_to_recordset(?::jsonb) as r(id text, qr_code_id text, scanned_at timestamptz, country text, city text,
                                           device text, os text, browser text, referrer text, language text)
   order by r.id
), codes as (
  select * from jsonb_to_recordset(?::jsonb) as c(id text, organization_id text)
), ins as (
  insert into scans (id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language)
  select i.id, c.organization_id, i.qr_code_id, i.scanned_at, i.country, i.city, i.device, i.os, i.browser, i.referrer, i.language
    from input i join codes c on c.id = i.qr_code_id
   order by i.id
  on conflict (id) do nothing
  returning id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language
), per_day as (
  insert into scan_days as d (qr_code_id, day, count, first_at, last_at)
  select qr_code_id, (scanned_at at time zone 'UTC')::date, count(*), min(scanned_at), max(scanned_at)
    from ins group by 1, 2 order by 1, 2
  on conflict (qr_code_id, day) do update
     set count = d.count + excluded.count,
         first_at = least(d.first_at, excluded.first_at),
         last_at = greatest(d.last_at, excluded.last_at)
  returning 1
), dims as (
  select i.qr_code_id, (i.scanned_at at time zone 'UTC')::date as day, x.dimension, x.value
    from ins i
   cross join lateral (values ('country', coalesce(i.country, '')), ('city', coalesce(i.city, '')),
                              ('device', coalesce(i.device, '')), ('os', coalesce(i.os, '')),
                              ('browser', coalesce(i.browser, '')), ('referrer', coalesce(i.referrer, '')),
                              ('language', coalesce(i.language, ''))) as x(dimension, value)
), per_value as (
  insert into scan_day_values as v (qr_code_id, dimension, day, value, count)
  select qr_code_id, dimension, day, value, count(*) from dims group by 1, 2, 3, 4 order by 1, 2, 3, 4
  on conflict (qr_code_id, dimension, day, value) do update set count = v.count + excluded.count
  returning 1
), per_total as (
  insert into scan_value_totals as t (qr_code_id, dimension, value, count)
  select qr_code_id, dimension, value, count(*) from dims group by 1, 2, 3 order by 1, 2, 3
  on conflict (qr_code_id, dimension, value) do update set count = t.count + excluded.count
  returning 1
)
select * from ins`;

/** Stored scans per code: how many, and the latest. */
function perCode(inserted: readonly InsertedScan[]): Array<{ id: string; n: number; lastAt: string }> {
  const counts = new Map<string, { id: string; n: number; lastAt: string }>();
  for (const s of inserted) {
    const at = new Date(s.scanned_at).toISOString();
    const c = counts.get(s.qr_code_id);
    if (!c) counts.set(s.qr_code_id, { id: s.qr_code_id, n: 1, lastAt: at });
    else {
      c.n++;
      if (at > c.lastAt) c.lastAt = at;
    }
  }
  return [...counts.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

const MAX_TRIES = 5;

/** Lock conflicts between workers and a code purged between the join and the insert: a retry settles both. */
function isRetryable(err: unknown): boolean {
  return err instanceof DeadlockException || err instanceof ForeignKeyConstraintViolationException || err instanceof LockWaitTimeoutException;
}

export interface StoreResult {
  inserted: number;
  events: number;
}

/**
 * Stores one stream entry's scans in one transaction: raw scans, rollups, counters and, for workspaces with a
 * listener (a subscribed webhook endpoint), one qr.scanned event per new scan (the outbox: delivered after commit). Idempotent by scan id.
 */
export async function storeScans(em: EntityManager, events: EventsService, records: ScanRecord[]): Promise<StoreResult> {
  if (records.length === 0) return { inserted: 0, events: 0 };
  const input = JSON.stringify(records);
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.fork().transactional(async (tx) => {
        const codes = await lockCodesForScans(tx, [...new Set(records.map((r) => r.qr_code_id))]);
        if (codes.length === 0) return { inserted: 0, events: 0 };
        const inserted = await tx.execute<InsertedScan[]>(STORE_SQL, [input, JSON.stringify(codes)]);
        if (inserted.length === 0) return { inserted: 0, events: 0 };
        await addScans(tx, perCode(inserted));
        // Only dispatched events are recorded (docs/webhooks.md), at one probe per entry: a workspace nobody listens to writes no events at all.
        // Each event takes its code's environment: a test-mode code's scans reach only test endpoints.
        const environmentOf = new Map(codes.map((c) => [c.id, c.environment]));
        const ordered = [...inserted].sort((a, b) => +new Date(a.scanned_at) - +new Date(b.scanned_at));
        const ids = await events.emitMany(
          tx,
          'qr.scanned',
          ordered.map((scan) => ({
            owner: { organizationId: scan.organization_id, environment: environmentOf.get(scan.qr_code_id)! },
            data: scannedEventData(scan),
          })),
        );
        const recorded = ids.filter((id) => id !== null).length;
        return { inserted: inserted.length, events: recorded };
      });
    } catch (err) {
      if (attempt >= MAX_TRIES || !isRetryable(err)) throw err;
      await new Promise((r) => setTimeout(r, 20 * attempt + Math.random() * 50));
    }
  }
}
