import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiException } from '../../common/errors/api.exception';
import { dayNumber, dayString, planBreakdownDays, resolveRange, splitUtcDays } from './analytics-range';
import { checkSeriesPoints, dayOfRequest, FILTER_DIMENSIONS, rfc3339, type AnalyticsRequest } from './analytics-query';
import type { AnalyticsBody, BreakdownItemDto, IntervalPointDto, RuleItemDto } from './analytics.dto';

/** Top values per breakdown list (docs/analytics.md). */
export const TOP_VALUES = 10;
/** The `rules` breakdown is every rule and arm with scans, not a top 10: one code has at most 20 rules × 10 arms and
 * the default. Over many codes (workspace analytics) the busiest RULE_ROWS are kept. */
export const RULE_ROWS = 20 * 10 + 1;
export const UNKNOWN = 'Unknown';

const BREAKDOWNS = {
  country: 'countries',
  city: 'cities',
  device: 'devices',
  os: 'operating_systems',
  browser: 'browsers',
  referrer: 'referrers',
  language: 'languages',
} as const;
type ListName = (typeof BREAKDOWNS)[keyof typeof BREAKDOWNS];

/** The codes one answer covers and the facts the engine needs about them. */
export interface CodeSet {
  ids: string[];
  /** The earliest creation time among them (the default start of the series). */
  createdAt: Date;
  /** Smart-URL rule names by rule id (target.rules[].name), for the `rules` breakdown. */
  ruleNames: Map<string, string | null>;
  /**
   * Set when the codes are every live dynamic code of one workspace and environment: the answer then reads the
   * workspace rollups (scan_org_*), which sum every dynamic code of it, minus the per-code rollups of `excluded`
   * (its dynamic codes that are not live: trashed or paused).
   */
  workspace?: { organizationId: string; environment: string; excluded: string[] };
}

/**
 * Every `?` of the statement reads from one parameter row `p` (bound once, in order), so the pieces below can be
 * composed freely. Columns: ids, lo/hi (instants of the filter, hi exclusive, null = open), dlo/dhi (the whole UTC
 * days inside lo..hi, for the daily rollups; see splitUtcDays), tz, slo/shi (instants of the series), llo/lhi (local
 * wall times of the series, lhi exclusive), unit, one lower-cased value per dimension filter, org/env and xids
 * (workspace mode), vdlo/vdhi (the days of the daily rollups the breakdowns and qr_codes read) and parts (the raw
 * scans, or hourly rollups, they add or take back at the range's ends, at most two; see planBreakdownDays).
 */
const PARAMS = `p as materialized (
  select array(select jsonb_array_elements_text(?::jsonb)) as ids, ?::timestamptz as lo, ?::timestamptz as hi, ?::date as dlo, ?::date as dhi, ?::text as tz,
         ?::timestamptz as slo, ?::timestamptz as shi, ?::timestamp as llo, ?::timestamp as lhi, ?::text as unit,
         ${FILTER_DIMENSIONS.map((d) => `?::text as f_${d}`).join(', ')},
         ?::text as org, ?::text as env, array(select jsonb_array_elements_text(?::jsonb)) as xids,
         ?::date as vdlo, ?::date as vdhi, ?::jsonb as parts
)`;
const P = (col: string) => `(select ${col} from p)`;
const CODES = `qr_code_id = any(${P('ids')}::text[])`;
const IN_FILTER = (col: string) => `${col} >= coalesce(${P('lo')}, '-infinity') and ${col} < coalesce(${P('hi')}, 'infinity')`;
const IN_SERIES = (col: string) => `${col} >= ${P('slo')} and ${col} < ${P('shi')}`;
/** Workspace mode: the workspace's rows of a scan_org_* table, and the per-code rows of its excluded codes. */
const ORG = `organization_id = ${P('org')} and environment = ${P('env')}`;
const EXCLUDED = `qr_code_id = any(${P('xids')}::text[])`;
/** Workspace rows minus the excluded codes' rows of a rollup, summed by `keys` (`where` narrows both sides). */
const NET = (orgTable: string, codeTable: string, keys: string, sums: string[], where: string) =>
  `select ${keys}, ${sums.map((c) => `sum(${c}) as ${c}`).join(', ')} from (
     select ${keys}, ${sums.join(', ')} from ${orgTable} where ${ORG} and ${where}
     union all
     select ${keys}, ${sums.map((c) => `-${c}`).join(', ')} from ${codeTable} where ${EXCLUDED} and ${where}) z group by ${keys}`;
const IN_DAYS = `day between coalesce(${P('dlo')}, '-infinity'::date) and coalesce(${P('dhi')}, 'infinity'::date)`;
/** The days of the daily value rollups a bounded breakdown reads (IN_DAYS widened by the ends taken back from raw scans). */
const IN_VALUE_DAYS = `day between coalesce(${P('vdlo')}, '-infinity'::date) and coalesce(${P('vdhi')}, 'infinity'::date)`;

/**
 * The raw scans of the filter range that match every dimension filter (expired scans included; callers split). Its
 * one `?` (bound after the parameter row's) is the code ids as a constant array: PostgreSQL then estimates them and
 * reads scans_code_time_idx. Read from `p`, the ids were unknown to the planner, which walked scans_time_idx over the
 * whole range instead: 6–7 s for a code with 14 scans among 5.6 M of other codes.
 */
const RAW = (filters: string[]) => `f as materialized (
  select s.scanned_at, s.visit_unique, s.expired, s.rule_id, s.arm, s.qr_code_id,
         ${FILTER_DIMENSIONS.map((d) => `s.${d}`).join(', ')}
    from scans s
   where s.qr_code_id = any(?::text[]) and ${IN_FILTER('s.scanned_at')}
     ${filters.map((d) => `and lower(coalesce(s.${d}, '${UNKNOWN.toLowerCase()}')) = ${P(`f_${d}`)}`).join(' ')}
)`;

/**
 * The counted raw scans of the range's ends (each a part of a UTC day), so that breakdowns of a bounded range in a zone
 * other than UTC cover exactly its local days: whole UTC days come from the daily rollups, and each end either adds
 * the scans of its part of a UTC day, or (when that part is the longer one) the whole day is read from the rollups
 * and the scans of the rest of the day are taken back (sign -1). One index range on (qr_code_id, scanned_at) per part.
 */
const EDGE = (i: number) => `
  select s.country, s.city, s.device, s.os, s.browser, s.referrer, s.language, s.rule_id, s.arm, (${P(`parts->${i}->>'sign'`)})::bigint as sign
    from scans s
   where s.${CODES} and not s.expired
     and s.scanned_at >= (${P(`parts->${i}->>'from'`)})::timestamptz and s.scanned_at < (${P(`parts->${i}->>'to'`)})::timestamptz`;
// Scalar bounds (one per end; a missing part's are null and select nothing), so each is an index range, never a join.
const EDGES = `e as materialized (${EDGE(0)}
  union all${EDGE(1)}
)`;

/** One row per scan and dimension of a raw scan relation `r` (value '' = unknown; rule `<rule_id>:<arm>`), counting
 * `count` (1, or the edge's sign). */
const RAW_VALUES = (r: string, count = '1::bigint') => `select case x.dimension
           ${FILTER_DIMENSIONS.map((d) => `when '${d}' then coalesce(${r}.${d}, '')`).join(' ')}
           when 'rule' then case when ${r}.rule_id is null then null else ${r}.rule_id || ':' || coalesce(${r}.arm::text, '') end
         end as value, ${count} as count`;

/** The local bucket (wall time) of an instant column for day/week/month, or the series hour it falls in. */
const BUCKET = (col: string, hourly: boolean) =>
  hourly ? `date_bin('1 hour', ${col}, ${P('slo')})` : `date_trunc(${P('unit')}, ${col} at time zone ${P('tz')})`;

/** The series' slots: local wall time `l` and instant `i`, oldest first. */
const SLOTS = (hourly: boolean) =>
  hourly
    ? `select g.t as k, g.t at time zone ${P('tz')} as l, g.t as i
         from generate_series(${P('slo')}, ${P('shi')} - interval '1 hour', interval '1 hour') g(t)`
    : `select g.t as k, g.t as l, g.t at time zone ${P('tz')} as i
         from generate_series(date_trunc(${P('unit')}, ${P('llo')}), ${P('lhi')} - interval '1 microsecond', ('1 ' || ${P('unit')})::interval) g(t)`;

/**
 * The top TOP_VALUES values of each dimension (RULE_ROWS of `rule`; ties by name) from `counts` (value and count
 * rows of the dimension `x.dimension`). Values are grouped in the "C" collation (byte order, as the ties always were) rather than the
 * database's locale, a cheaper sort of each dimension's rows (30 days of one code at 10 M scans: 13.0 → 12.3 ms for
 * the whole statement). Each dimension keeps its own index range: one scan for all eight (`dimension = any(…)`) made
 * PostgreSQL read every day of the code's index for a one-day range.
 */
const topSql = (counts: string): string => `
select x.dimension, t.name, t.n
  from unnest(array['country', 'city', 'device', 'os', 'browser', 'referrer', 'language', 'rule']) as x(dimension)
 cross join lateral (
   select v.name, sum(v.count) as n
     from (select (case when c.value = '' and x.dimension <> 'rule' then '${UNKNOWN}' else c.value end) collate "C" as name, c.count from (${counts}) c) v
    group by v.name
   having sum(v.count) > 0
    order by n desc, v.name
    limit case when x.dimension = 'rule' then ${RULE_ROWS} else ${TOP_VALUES} end
 ) t`;

type Row = {
  totals: { total: string | number | null; uniques: string | number | null; expired: string | number | null; first_at: string | null; last_at: string | null };
  series: { l: string; off: number; scans: string | number; uniques: string | number }[];
  /** `e`: expired scans in that hour of the week (read from the hourly rollups only) */
  how: { i: number; n: string | number; e?: string | number }[];
  top: { dimension: string; name: string; n: string | number }[];
  codes: { id: string; n: string | number }[];
};

const num = (v: string | number | null | undefined): number => (v === null || v === undefined ? 0 : Number(v));

/**
 * The analytics answer over a set of codes (one code, or a workspace selection): one statement, so every part comes
 * from one snapshot. Without dimension filters it reads rollups only (scan_days, scan_hours, scan_value_totals,
 * scan_day_values); with filters, the raw scans of the range (docs/analytics.md: "Filters").
 */
export async function analyticsOver(em: EntityManager, codes: CodeSet, req: AnalyticsRequest, withCodes: boolean): Promise<AnalyticsBody> {
  const createdDay = dayOfRequest(codes.createdAt, req);
  const range = resolveRange(req.range, createdDay, req.today);
  checkSeriesPoints(req.interval, range.series);
  const filters = FILTER_DIMENSIONS.filter((d) => req.filters[d] !== undefined);
  const raw = filters.length > 0;
  const hourly = req.interval === 'hour';
  const bounded = range.filter.from !== null || range.filter.to !== null;
  const nextDay = (d: string) => dayString(dayNumber(d)! + 1);

  // Instants are computed by PostgreSQL from local wall times (its tz database decides DST), in the parameter row.
  const params: unknown[] = [
    JSON.stringify(codes.ids),
    null, // lo: below
    null, // hi
    null, // dlo: below
    null, // dhi
    req.timezone,
    null, // slo
    null, // shi
    `${range.series.from}T00:00:00`,
    `${nextDay(range.series.to)}T00:00:00`,
    req.interval,
    ...FILTER_DIMENSIONS.map((d) => (req.filters[d] === undefined ? null : req.filters[d]!.toLowerCase())),
    codes.workspace?.organizationId ?? null,
    codes.workspace?.environment ?? null,
    JSON.stringify(codes.workspace?.excluded ?? []),
    null, // vdlo: below
    null, // vdhi
    '[]', // parts
  ];
  const local = (d: string | null) => (d === null ? null : `${d}T00:00:00`);
  const [lo, hi, slo, shi] = await zoneInstants(em, req.timezone, [
    local(range.filter.from),
    range.filter.to === null ? null : local(nextDay(range.filter.to)),
    local(range.series.from),
    local(nextDay(range.series.to)),
  ]);
  const days = splitUtcDays(lo, hi);
  params[1] = lo;
  params[2] = hi;
  params[3] = days.fromDay;
  params[4] = days.toDay;
  params[6] = slo;
  params[7] = shi;
  // A bounded range in another zone starts or ends inside UTC days: its breakdowns add (or take back) those edges
  // from raw scans.
  const edges = !raw && bounded && !req.utc;
  const plan = edges ? planBreakdownDays(lo, hi) : { dayFrom: days.fromDay, dayTo: days.toDay, parts: [] };
  const v = params.length - 3;
  params[v] = plan.dayFrom;
  params[v + 1] = plan.dayTo;
  params[v + 2] = JSON.stringify(plan.parts);
  // The whole workspace (no filter): its rollups (scan_org_*) minus those of its excluded codes; per code otherwise.
  const ws = !raw && codes.workspace !== undefined;

  // Totals: the daily rollups when UTC days are the boundaries (or all time), else the hourly ones; filters: raw.
  const useDays = !raw && (req.utc || !bounded);
  // Workspace mode keeps no first/last scan times: they are those of the selected codes' per-code rollups on the first
  // and last day (or hour) with scans, a primary-key probe per code.
  const probe = (table: string, key: string, rel: string) =>
    `(select min(first_at) from ${table} where ${CODES} and ${key} = (select min(${key}) from ${rel} where count > 0)) as first_at,
     (select max(last_at) from ${table} where ${CODES} and ${key} = (select max(${key}) from ${rel} where count > 0)) as last_at`;
  const totals = ws
    ? useDays
      ? `select sum(count) as total, sum(uniques) as uniques, null as expired, ${probe('scan_days', 'day', 'nd')} from nd`
      : `select sum(count) as total, sum(uniques) as uniques, sum(expired) as expired, ${probe('scan_hours', 'hour', 'h')} from h`
    : raw
    ? `select count(*) filter (where not expired) as total, count(*) filter (where visit_unique) as uniques, count(*) filter (where expired) as expired,
              min(scanned_at) filter (where not expired) as first_at, max(scanned_at) filter (where not expired) as last_at from f`
    : useDays
      ? `select sum(count) as total, sum(uniques) as uniques, null as expired,
                min(first_at) as first_at, max(last_at) as last_at from scan_days where ${CODES} and ${IN_DAYS}`
      : `select sum(count) as total, sum(uniques) as uniques, sum(expired) as expired, min(first_at) as first_at, max(last_at) as last_at from h`;

  const seriesRows = ws
    ? req.utc && req.interval === 'day'
      ? `select day::timestamp as k, count as scans, uniques from (${NET('scan_org_days', 'scan_days', 'day', ['count', 'uniques'], `day >= ${P('llo')}::date and day < ${P('lhi')}::date`)}) n`
      : `select ${BUCKET('hour', hourly)} as k, sum(count) as scans, sum(uniques) as uniques
           from (${NET('scan_org_hours', 'scan_hours', 'hour', ['count', 'uniques'], IN_SERIES('hour'))}) n group by 1`
    : raw
    ? `select ${BUCKET('scanned_at', hourly)} as k, count(*) filter (where not expired) as scans, count(*) filter (where visit_unique) as uniques
         from f where ${IN_SERIES('scanned_at')} group by 1`
    : req.utc && req.interval === 'day'
      ? `select day::timestamp as k, sum(count) as scans, sum(uniques) as uniques from scan_days
          where ${CODES} and day >= ${P('llo')}::date and day < ${P('lhi')}::date group by 1`
      : `select ${BUCKET('hour', hourly)} as k, sum(count) as scans, sum(uniques) as uniques
           from scan_hours where ${CODES} and ${IN_SERIES('hour')} group by 1`;
  // A slot's start is shown as the wall time of its instant: a midnight the zone skips (America/Santiago's spring
  // change) is the slot's first instant, 01:00 at the new offset, not 00:00 at the old one.
  const series = `select to_char(s.i at time zone ${P('tz')}, 'YYYY-MM-DD"T"HH24:MI:SS') as l,
                         (extract(epoch from ((s.i at time zone ${P('tz')}) - (s.i at time zone 'UTC'))) / 60)::int as off,
                         coalesce(r.scans, 0) as scans, coalesce(r.uniques, 0) as uniques
                    from (${SLOTS(hourly)}) s left join (${seriesRows}) r on r.k = s.k order by s.i`;

  // Hour of the week of an instant, Monday 00:00 = 0: from the seconds of its local wall time since 1970-01-01 (a
  // Thursday, hence + 72 hours), one zone conversion per row and none in UTC (hourly rows of a year: 8,760 of them).
  // date_part gives a double, extract a numeric: over the 9,600 hours of a code's 400 days, 4 ms instead of 15.
  const HOW = (col: string) =>
    `((floor(date_part('epoch', ${req.utc ? col : `(${col} at time zone ${P('tz')})`}) / 3600)::bigint + 72) % 168)::int`;
  const how = raw
    ? `select ${HOW('scanned_at')} as i, count(*) as n from f where not expired group by 1`
    : // expired_scans too, when the totals come from the daily rollups (which keep no expired count): one pass over h.
      `select ${HOW('hour')} as i, sum(count) as n, sum(expired) as e from h where count > 0 or expired > 0 group by 1`;

  const edgeValues = edges ? `union all select value, count from (${RAW_VALUES('e', 'e.sign')} from e) z where value is not null` : '';
  const top = ws
    ? !bounded
      ? topSql(`select value, count from scan_org_value_totals where ${ORG} and dimension = x.dimension
                union all select value, -count from scan_value_totals where ${EXCLUDED} and dimension = x.dimension`)
      : topSql(`select value, count from scan_org_day_values where ${ORG} and dimension = x.dimension and ${IN_VALUE_DAYS}
                union all select value, -count from scan_day_values where ${EXCLUDED} and dimension = x.dimension and ${IN_VALUE_DAYS}
                ${edgeValues}`)
    : raw
    ? topSql(`select value, count from (${RAW_VALUES('f')} from f where not f.expired) z where value is not null`)
    : !bounded
      ? topSql(`select value, count from scan_value_totals where ${CODES} and dimension = x.dimension`)
      : topSql(`select value, count from scan_day_values where ${CODES} and dimension = x.dimension and ${IN_VALUE_DAYS} ${edgeValues}`);

  const perCode = !withCodes
    ? `select null::text as id, 0 as n where false`
    : raw
      ? `select qr_code_id as id, count(*) as n from f where not expired group by 1 order by 2 desc, 1 limit ${TOP_VALUES}`
      : !bounded
        ? // All time: a code's all-time count is the sum of its value totals of one dimension every counted scan has.
          `select qr_code_id as id, sum(count) as n from scan_value_totals where ${CODES} and dimension = 'device' group by 1 having sum(count) > 0 order by 2 desc, 1 limit ${TOP_VALUES}`
        : useDays
          ? `select qr_code_id as id, sum(count) as n from scan_days where ${CODES} and ${IN_DAYS} group by 1 having sum(count) > 0 order by 2 desc, 1 limit ${TOP_VALUES}`
          : // Another zone: whole UTC days from the daily rollups and the ends from the hourly ones, as the breakdowns
            // (planBreakdownDays: each end's hours added, or its day's other hours taken back).
            `select qr_code_id as id, sum(n) as n from (
               select qr_code_id, count as n from scan_days where ${CODES} and ${IN_VALUE_DAYS}
               ${[0, 1].map((i) => `union all
               select qr_code_id, count * (${P(`parts->${i}->>'sign'`)})::int from scan_hours where ${CODES}
                  and hour >= (${P(`parts->${i}->>'from'`)})::timestamptz and hour < (${P(`parts->${i}->>'to'`)})::timestamptz`).join('\n')}) z
             group by 1 having sum(n) > 0 order by 2 desc, 1 limit ${TOP_VALUES}`;

  // The hourly rollups of the filter range (per code, or the workspace's net of its excluded codes), read for
  // by_hour_of_week (expired_scans in the same pass) and, in another zone, for the totals too; read once (the first
  // case), PostgreSQL folds it into that query instead of materializing it.
  const hOnce = useDays ? 'not materialized' : 'materialized';
  const hours = ws
    ? `h as ${hOnce} (${NET('scan_org_hours', 'scan_hours', 'hour', ['count', 'uniques', 'expired'], IN_FILTER('hour'))})`
    : `h as ${hOnce} (
    select qr_code_id, hour, count, uniques, expired, first_at, last_at from scan_hours where ${CODES} and ${IN_FILTER('hour')})`;
  const netDays = ws && useDays ? `, nd as materialized (${NET('scan_org_days', 'scan_days', 'day', ['count', 'uniques'], IN_DAYS)})` : '';
  const sql = `with ${PARAMS}${raw ? `, ${RAW(filters)}` : `, ${hours}`}${netDays}${edges ? `, ${EDGES}` : ''}
select (select row_to_json(t) from (${totals}) t) as totals,
       (select coalesce(json_agg(s), '[]'::json) from (${series}) s) as series,
       (select coalesce(json_agg(w), '[]'::json) from (${how}) w) as how,
       (select coalesce(json_agg(t), '[]'::json) from (${top}) t) as top,
       (select coalesce(json_agg(c), '[]'::json) from (${perCode}) c) as codes`;
  // RAW's ids, after the parameter row's values (RAW follows PARAMS, and nothing else in the statement binds).
  if (raw) params.push(`{${codes.ids.filter((id) => /^[0-9A-Za-z_]+$/.test(id)).join(',')}}`);
  const [row] = await em.execute<Row[]>(sql, params);

  const lists = Object.fromEntries(Object.values(BREAKDOWNS).map((k) => [k, [] as BreakdownItemDto[]])) as Record<ListName, BreakdownItemDto[]>;
  const rules: RuleItemDto[] = [];
  for (const t of row.top) {
    if (t.dimension === 'rule') {
      const cut = t.name.lastIndexOf(':');
      const ruleId = t.name.slice(0, cut) || null;
      const arm = t.name.slice(cut + 1);
      rules.push({ rule_id: ruleId, arm: arm === '' ? null : Number(arm), name: ruleId === null ? null : (codes.ruleNames.get(ruleId) ?? null), count: num(t.n) });
    } else {
      lists[BREAKDOWNS[t.dimension as keyof typeof BREAKDOWNS]].push({ name: t.name, count: num(t.n) });
    }
  }
  rules.sort((a, b) => b.count - a.count || String(a.rule_id ?? '').localeCompare(String(b.rule_id ?? '')) || (a.arm ?? -1) - (b.arm ?? -1));

  const byHourOfWeek = new Array<number>(168).fill(0);
  let expiredByHour = 0;
  for (const h of row.how) {
    byHourOfWeek[h.i] += num(h.n);
    expiredByHour += num(h.e);
  }

  const points: IntervalPointDto[] = row.series.map((s) => ({ start: rfc3339(s.l, s.off), scans: num(s.scans), unique_scans: num(s.uniques) }));
  const t = row.totals;
  const body: AnalyticsBody = {
    total_scans: num(t.total),
    unique_scans: num(t.uniques),
    // null when the totals come from the daily rollups: then the hourly rows' sum (by_hour_of_week's pass).
    expired_scans: t.expired === null ? expiredByHour : num(t.expired),
    first_scan_at: t.first_at ? new Date(t.first_at).toISOString() : null,
    last_scan_at: t.last_at ? new Date(t.last_at).toISOString() : null,
    timezone: req.zoneName,
    interval: req.interval,
    ...(req.interval === 'day' ? { scans_by_day: points.map((p) => ({ date: p.start.slice(0, 10), count: p.scans })) } : {}),
    scans_by_interval: points,
    by_hour_of_week: byHourOfWeek,
    ...lists,
    rules: rules.slice(0, RULE_ROWS),
  };
  if (withCodes) body.qr_codes = row.codes.map((c) => ({ id: c.id, name: null, count: num(c.n) }));
  return body;
}

const WALL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/** Instants (ISO) of local wall times in `tz`, as PostgreSQL's tz database has them (null stays null). In UTC a wall
 * time is its instant: no round trip to the database (the default zone of every analytics request). */
export async function zoneInstants(em: EntityManager, tz: string, locals: (string | null)[]): Promise<(string | null)[]> {
  if (tz === 'UTC' && locals.every((x) => x === null || WALL_TIME.test(x))) return locals.map((x) => (x === null ? null : `${x}Z`));
  try {
    const [row] = await em.execute<{ a: (string | null)[] }[]>(
      `select array(select case when x is null then null else to_char((x::timestamp at time zone ?) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') end
                      from jsonb_array_elements_text(?::jsonb) with ordinality u(x, n) order by n) as a`,
      [tz, JSON.stringify(locals)],
    );
    return row.a;
  } catch (err) {
    // A zone Intl knows but PostgreSQL's tz database does not (a newer name): the caller's input, not a server fault.
    if ((err as { code?: unknown }).code === '22023') throw ApiException.invalid('timezone', `timezone '${tz}' is not known to this server's time zone database`);
    throw err;
  }
}
