import { DeadlockException, ForeignKeyConstraintViolationException, LockWaitTimeoutException } from '@mikro-orm/core';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import type { ScanContext, ScanRecord } from '../scan/scan-contract';
import type { EventsService } from '../events/events.service';
import { scanIngestSql } from '../qr-codes/qr-codes.repository';
import { ENVIRONMENTS, type Environment } from '../../common/auth/api-key-format';

/** A stored scan as `insert … returning` gives it back. */
interface InsertedScan extends ScanContext {
  id: string;
  organization_id: string;
  /** The code's environment (joined in the statement's final select). */
  environment: Environment;
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
 * One statement stores a whole batch (the entries of one stream read, up to 10,000 scans), set-based:
 * - `ins` inserts the raw scans whose code still exists (a code purged meanwhile drops out of the join) and skips ids
 *   already stored (`on conflict do nothing`): re-reading an entry, or the same scan twice, changes nothing;
 * - `combos` groups the new scans that share code, day and all seven values (most of a busy code's scans), and `dims`
 *   lists each group once per dimension ('' = unknown) with its count, for both value rollups (a CTE read twice is
 *   computed once);
 * - `seen` records each (code, UTC day, visitor) pair once (scan_visitors); a pair it really inserted makes the earliest
 *   scan of that visitor in the batch the visitor's unique scan of the day (`visit_unique`); a scan without visitor
 *   (no salt) is unique by itself; an expired scan never is. A redelivered scan finds its pair already there;
 * - `counted` = the new scans that are not expired: only they feed total counts, breakdowns and qr_codes.scan_count;
 *   expired scans are counted in scan_hours.expired only; `scan_hours` holds per UTC hour what scan_days holds per day
 *   (plus expired), for hourly series, any time zone and hour-of-week; smart-URL rules are the dimension 'rule'
 *   (value `<rule_id>:<arm>`, rule_id '' for the default destination), only for scans whose record names one;
 * - only the rows `ins` really inserted feed the rollups (scan_days, scan_day_values, scan_value_totals) and
 *   qr_codes.scan_count / last_scan_at, so the counters stay exact under redelivery. Each per-code rollup's grouped
 *   rows (`day_rows`, `hour_rows`, `value_rows`, `total_rows`) also feed its workspace twin (`scan_org_*`, keyed by
 *   the code's organization and environment from `codes`): a batch adds one row per workspace, day/hour and value.
 *   A batch upserts each rollup row and each code once, however many of its scans share it: the upserts (and the
 *   code row update, which touches every index of qr_codes) are paid per batch, not per entry of 500.
 * The two parts on qr_codes are qr-codes' (scanIngestSql, the owner's export). `codes` locks the batch's qr_codes rows
 * first, in id order: two workers storing scans of the same codes queue up
 * behind each other instead of deadlocking on the rollup rows (which belong to those codes). The lock mode (no key
 * update) does not block the foreign-key checks of concurrent scan inserts or lead writes.
 * Postgres runs every data-modifying CTE to completion even though the final select reads only `ins`. It returns the
 * number of scans inserted and, only when some workspace of the batch has a qr.scanned subscriber, those
 * workspaces' new scans as one JSON array (they become events): with no webhook, a batch sends one row back.
 */
const STORE_SQL = `
with input as (
  select distinct on (r.id) r.*
    from jsonb_to_recordset(?::jsonb) as r(id text, qr_code_id text, scanned_at timestamptz, country text, city text,
                                           device text, os text, browser text, referrer text, language text,
                                           visitor text, rule_id text, arm smallint, expired boolean)
   order by r.id
), codes as (
  ${scanIngestSql.lockCodes('input')}
), found as (
  select i.*, c.organization_id, (i.scanned_at at time zone 'UTC')::date as day, coalesce(i.expired, false) as is_expired
    from input i join codes c on c.id = i.qr_code_id
), seen as (
  insert into scan_visitors (qr_code_id, day, visitor)
  select distinct qr_code_id, day, visitor from found where visitor is not null and not is_expired
   order by 1, 2, 3
  on conflict do nothing
  returning qr_code_id, day, visitor
), ranked as (
  select f.*,
         not f.is_expired and (f.visitor is null or (s.visitor is not null
           and row_number() over (partition by f.qr_code_id, f.day, f.visitor order by f.scanned_at, f.id) = 1)) as is_unique
    from found f
    left join seen s on s.qr_code_id = f.qr_code_id and s.day = f.day and s.visitor = f.visitor
), ins as (
  insert into scans (id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language,
                     visit_unique, expired, rule_id, arm)
  select id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language,
         is_unique, is_expired, rule_id, arm
    from ranked
   order by id
  on conflict (id) do nothing
  returning id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language,
            visit_unique, expired, rule_id, arm
), counted as (
  select * from ins where not expired
), day_rows as (
  select qr_code_id, (scanned_at at time zone 'UTC')::date as day, count(*) as n, count(*) filter (where visit_unique) as u,
         min(scanned_at) as first_at, max(scanned_at) as last_at
    from counted group by 1, 2
), per_day as (
  insert into scan_days as d (qr_code_id, day, count, uniques, first_at, last_at)
  select qr_code_id, day, n, u, first_at, last_at from day_rows order by 1, 2
  on conflict (qr_code_id, day) do update
     set count = d.count + excluded.count,
         uniques = d.uniques + excluded.uniques,
         first_at = least(d.first_at, excluded.first_at),
         last_at = greatest(d.last_at, excluded.last_at)
  returning 1
), org_day as (
  insert into scan_org_days as d (organization_id, environment, day, count, uniques)
  select c.organization_id, c.environment, r.day, sum(r.n), sum(r.u) from day_rows r join codes c on c.id = r.qr_code_id
   group by 1, 2, 3 order by 1, 2, 3
  on conflict (organization_id, environment, day) do update set count = d.count + excluded.count, uniques = d.uniques + excluded.uniques
  returning 1
), hour_rows as (
  select qr_code_id, date_trunc('hour', scanned_at at time zone 'UTC') at time zone 'UTC' as hour,
         count(*) filter (where not expired) as n, count(*) filter (where visit_unique) as u, count(*) filter (where expired) as x,
         min(scanned_at) filter (where not expired) as first_at, max(scanned_at) filter (where not expired) as last_at
    from ins group by 1, 2
), per_hour as (
  insert into scan_hours as h (qr_code_id, hour, count, uniques, expired, first_at, last_at)
  select qr_code_id, hour, n, u, x, first_at, last_at from hour_rows order by 1, 2
  on conflict (qr_code_id, hour) do update
     set count = h.count + excluded.count,
         uniques = h.uniques + excluded.uniques,
         expired = h.expired + excluded.expired,
         first_at = least(h.first_at, excluded.first_at),
         last_at = greatest(h.last_at, excluded.last_at)
  returning 1
), org_hour as (
  insert into scan_org_hours as h (organization_id, environment, hour, count, uniques, expired)
  select c.organization_id, c.environment, r.hour, sum(r.n), sum(r.u), sum(r.x) from hour_rows r join codes c on c.id = r.qr_code_id
   group by 1, 2, 3 order by 1, 2, 3
  on conflict (organization_id, environment, hour) do update
     set count = h.count + excluded.count, uniques = h.uniques + excluded.uniques, expired = h.expired + excluded.expired
  returning 1
), combos as (
  select qr_code_id, (scanned_at at time zone 'UTC')::date as day, country, city, device, os, browser, referrer, language,
         case when rule_id is null then null else rule_id || ':' || coalesce(arm::text, '') end as rule, count(*) as n
    from counted group by 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
), dims as (
  select c.qr_code_id, c.day, x.dimension, x.value, c.n
    from combos c
   cross join lateral (values ('country', coalesce(c.country, '')), ('city', coalesce(c.city, '')),
                              ('device', coalesce(c.device, '')), ('os', coalesce(c.os, '')),
                              ('browser', coalesce(c.browser, '')), ('referrer', coalesce(c.referrer, '')),
                              ('language', coalesce(c.language, '')), ('rule', c.rule)) as x(dimension, value)
   where x.value is not null
), value_rows as (
  select qr_code_id, dimension, day, value, sum(n) as n from dims group by 1, 2, 3, 4
), per_value as (
  insert into scan_day_values as v (qr_code_id, dimension, day, value, count)
  select qr_code_id, dimension, day, value, n from value_rows order by 1, 2, 3, 4
  on conflict (qr_code_id, dimension, day, value) do update set count = v.count + excluded.count
  returning 1
), org_value as (
  insert into scan_org_day_values as v (organization_id, environment, dimension, day, value, count)
  select c.organization_id, c.environment, r.dimension, r.day, r.value, sum(r.n) from value_rows r join codes c on c.id = r.qr_code_id
   group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
  on conflict (organization_id, environment, dimension, day, value) do update set count = v.count + excluded.count
  returning 1
), total_rows as (
  select qr_code_id, dimension, value, sum(n) as n from value_rows group by 1, 2, 3
), per_total as (
  insert into scan_value_totals as t (qr_code_id, dimension, value, count)
  select qr_code_id, dimension, value, n from total_rows order by 1, 2, 3
  on conflict (qr_code_id, dimension, value) do update set count = t.count + excluded.count
  returning 1
), org_total as (
  insert into scan_org_value_totals as t (organization_id, environment, dimension, value, count)
  select c.organization_id, c.environment, r.dimension, r.value, sum(r.n) from total_rows r join codes c on c.id = r.qr_code_id
   group by 1, 2, 3, 4 order by 1, 2, 3, 4
  on conflict (organization_id, environment, dimension, value) do update set count = t.count + excluded.count
  returning 1
), per_code as (
  ${scanIngestSql.addScans('counted')}
)
select (select count(*)::int from ins) as inserted, `;

/** The new scans for the live feed, only while some feed is open (building them costs a tenth of a batch). */
const STORED = `(select coalesce(json_agg(json_build_array(i.id, i.visit_unique, c.environment) order by i.scanned_at, i.id), '[]'::json) from ins i join codes c on c.id = i.qr_code_id) as stored, `;
const NOT_STORED = `'[]'::json as stored, `;

/** The statement's result when no workspace of the batch has a qr.scanned listener (the common case). */
const COUNT_ONLY = `'[]'::json as subscribed`;
/** …and when some have: their new scans, each with its code's environment (looked up by primary key, so the cost
 * grows with the scans, never with scans × codes). */
const WITH_SUBSCRIBED = `coalesce((
  select json_agg(to_jsonb(i) || jsonb_build_object('environment', q.environment) order by i.scanned_at, i.id)
    from counted i join qr_codes q on q.id = i.qr_code_id
   where i.organization_id || '/' || q.environment in (select jsonb_array_elements_text(?::jsonb))), '[]'::json) as subscribed`;

const MAX_TRIES = 5;

/**
 * Memory for the statement's sorts and groupings, for this transaction only. A worst-case batch (10,000 scans over
 * many codes and days) sorts ~70,000 rollup rows twice, about 6 MB each: at the 4 MB default both spilled to disk.
 * At most IN_FLIGHT batches per worker run at once, so this bounds a worker's extra memory in PostgreSQL.
 */
const WORK_MEM = `set local work_mem = '32MB'`;

/** Lock conflicts between workers and a code purged between the join and the insert: a retry settles both. */
function isRetryable(err: unknown): boolean {
  return err instanceof DeadlockException || err instanceof ForeignKeyConstraintViolationException || err instanceof LockWaitTimeoutException;
}

/**
 * Runs `sql` in the EM's transaction with its `?` values sent as bound parameters. em.execute() would write them into
 * the SQL text instead, escaping a batch's JSON (about 2.5 MB for 10,000 scans) character by character in JavaScript:
 * that took longer than storing the batch. Errors are converted as em.execute() converts them.
 */
async function withBoundParameters<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  try {
    const query = em.getKnex().raw(sql, params as Knex.RawBinding[]);
    const trx = em.getTransactionContext<Knex.Transaction>();
    const res = (await (trx ? query.transacting(trx) : query)) as { rows: T[] };
    return res.rows;
  } catch (err) {
    throw em.getPlatform().getExceptionConverter().convertException(err as Error);
  }
}

export interface StoreResult {
  inserted: number;
  events: number;
  /** The scans really stored (not seen before): [id, unique, the code's environment], for the live feed. */
  stored: [string, boolean, Environment][];
}

/**
 * Stores a batch of scans (one or more stream entries) in one transaction: raw scans, rollups, counters and, for workspaces with a
 * listener (a subscribed webhook endpoint), one qr.scanned event per new scan (the outbox: delivered after commit). Idempotent by scan id.
 */
export async function storeScans(em: EntityManager, events: EventsService, records: ScanRecord[], live = false): Promise<StoreResult> {
  if (records.length === 0) return { inserted: 0, events: 0, stored: [] };
  // rule_id null (the default destination of a code with rules) is stored as '', NULL being "no rule involved".
  const input = records.some((r) => r.rule_id === null)
    ? JSON.stringify(records, (key, value: unknown) => (key === 'rule_id' && value === null ? '' : value))
    : JSON.stringify(records);
  const owners = [...new Set(records.map((r) => r.organization_id))].flatMap((organizationId) =>
    ENVIRONMENTS.map((environment) => ({ organizationId, environment })),
  );
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.fork().transactional(async (tx) => {
        // Only dispatched events are recorded (docs/webhooks.md): one probe per batch, before the insert, so the
        // statement sends back only the new scans that become events.
        // Each event takes its code's environment (a test-mode code's scans reach only test endpoints); the code's
        // environment is read in the statement, so the probe asks both environments of each workspace.
        const audience = await events.audience(tx, 'qr.scanned', owners);
        await tx.execute(WORK_MEM);
        const listened = audience.ownerKeys.length > 0;
        const [row] = await withBoundParameters<{ inserted: number; stored: [string, boolean, Environment][] | string; subscribed: InsertedScan[] | string }>(
          tx,
          STORE_SQL + (live ? STORED : NOT_STORED) + (listened ? WITH_SUBSCRIBED : COUNT_ONLY),
          listened ? [input, JSON.stringify(audience.ownerKeys)] : [input],
        );
        const subscribed = typeof row.subscribed === 'string' ? (JSON.parse(row.subscribed) as InsertedScan[]) : row.subscribed;
        const ids = await events.emitMany(
          tx,
          'qr.scanned',
          subscribed.map((scan) => ({ owner: { organizationId: scan.organization_id, environment: scan.environment }, data: scannedEventData(scan) })),
          audience,
        );
        const stored = typeof row.stored === 'string' ? (JSON.parse(row.stored) as [string, boolean, Environment][]) : row.stored;
        return { inserted: row.inserted, events: ids.filter((id) => id !== null).length, stored };
      });
    } catch (err) {
      if (attempt >= MAX_TRIES || !isRetryable(err)) throw err;
      await new Promise((r) => setTimeout(r, 20 * attempt + Math.random() * 50));
    }
  }
}
