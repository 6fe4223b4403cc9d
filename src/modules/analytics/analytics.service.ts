import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { findLiveCodeFacts } from '../qr-codes/qr-codes.repository';
import { parseRange, resolveRange, utcDay, zeroFill } from './analytics-range';
import type { AnalyticsDto, AnalyticsQueryDto, BreakdownItemDto } from './analytics.dto';
import type { ScanDimension } from './scan-entry';

/** Top values per breakdown list (docs/analytics.md). */
export const TOP_VALUES = 10;
export const UNKNOWN = 'Unknown';

const BREAKDOWNS: Record<ScanDimension, keyof AnalyticsDto> = {
  country: 'countries',
  city: 'cities',
  device: 'devices',
  os: 'operating_systems',
  browser: 'browsers',
  referrer: 'referrers',
  language: 'languages',
};

/** Days of the filter range (open bounds = all time) read through scan_days' primary key (qr_code_id, day). */
const DAYS_SQL = `
select to_char(day, 'YYYY-MM-DD') as day, count, first_at, last_at
  from scan_days
 where qr_code_id = ? and day between coalesce(?::date, '-infinity'::date) and coalesce(?::date, 'infinity'::date)`;

/**
 * Top values per dimension of `counts`, a query of (value, count) rows for the dimension `x.dimension`. Ties are
 * ordered by the reported name (byte order); '' is reported as Unknown.
 */
const topSql = (counts: string): string => `
select x.dimension, t.name, t.n
  from unnest(array['country', 'city', 'device', 'os', 'browser', 'referrer', 'language']) with ordinality as x(dimension, ord)
 cross join lateral (
   select v.name, sum(v.count) as n
     from (select case when c.value = '' then '${UNKNOWN}' else c.value end as name, c.count from (${counts}) c) v
    group by v.name
    order by n desc, v.name collate "C"
    limit ${TOP_VALUES}
 ) t
 order by x.ord, t.n desc, t.name collate "C"`;

/** Over the filter range: one index range scan per dimension on scan_day_values' primary key (code, dimension, day,
 * value). */
const TOP_SQL = topSql(`
  select value, count from scan_day_values
   where qr_code_id = ? and dimension = x.dimension
     and day between coalesce(?::date, '-infinity'::date) and coalesce(?::date, 'infinity'::date)`);

/** Unfiltered: the all-time totals, one short index range per dimension, whatever the number of scans or days. */
const TOP_ALL_TIME_SQL = topSql(`select value, count from scan_value_totals where qr_code_id = ? and dimension = x.dimension`);

/**
 * The days and the top values in one statement, so that both come from one snapshot: two queries could straddle an
 * ingestion commit and report new scans in the total with no breakdown yet (or the other way round).
 */
const oneSnapshot = (top: string): string => `
select (select coalesce(json_agg(d), '[]'::json) from (${DAYS_SQL}) d) as days,
       (select coalesce(json_agg(t), '[]'::json) from (${top}) t) as top`;
const ALL_TIME_SQL = oneSnapshot(TOP_ALL_TIME_SQL);
const FILTERED_SQL = oneSnapshot(TOP_SQL);

type DayRow = { day: string; count: string | number; first_at: Date | string; last_at: Date | string };
type TopRow = { dimension: ScanDimension; name: string; n: string | number };

const iso = (v: Date | string): string => new Date(v).toISOString();

/** GET /v1/qr-codes/{id}/analytics: read from the daily rollups only, so the cost does not grow with the scan count. */
@Injectable()
export class AnalyticsService {
  constructor(private readonly em: EntityManager) {}

  async forCode(auth: AuthContext, id: string, query: AnalyticsQueryDto, now = new Date()): Promise<AnalyticsDto> {
    const today = utcDay(now);
    const requested = parseRange(query, today);
    const code = /^s?qr_[0-9A-Za-z]+$/.test(id) ? await findLiveCodeFacts(this.em, auth, id) : null;
    if (!code) throw ApiException.notFound('QR code', id);
    if (code.kind !== 'dynamic') {
      throw new ApiException('static_code_not_supported', 'Static codes encode their content directly and are not tracked: they have no analytics');
    }
    const range = resolveRange(requested, utcDay(code.createdAt), today);
    const bounds = [id, range.filter.from, range.filter.to];
    const allTime = range.filter.from === null && range.filter.to === null;
    const [{ days, top }] = await this.em.execute<{ days: DayRow[]; top: TopRow[] }[]>(
      allTime ? ALL_TIME_SQL : FILTERED_SQL,
      allTime ? [...bounds, id] : [...bounds, ...bounds],
    );

    let total = 0;
    let first: number | null = null;
    let last: number | null = null;
    const perDay = new Map<string, number>();
    for (const d of days) {
      const count = Number(d.count);
      total += count;
      perDay.set(d.day, count);
      const f = new Date(d.first_at).getTime();
      const l = new Date(d.last_at).getTime();
      if (first === null || f < first) first = f;
      if (last === null || l > last) last = l;
    }
    const lists = Object.fromEntries(Object.values(BREAKDOWNS).map((k) => [k, [] as BreakdownItemDto[]]));
    for (const row of top) lists[BREAKDOWNS[row.dimension]]?.push({ name: row.name, count: Number(row.n) });

    return {
      object: 'analytics',
      qr_code_id: id,
      total_scans: total,
      first_scan_at: first === null ? null : iso(new Date(first)),
      last_scan_at: last === null ? null : iso(new Date(last)),
      scans_by_day: zeroFill(range.series, perDay),
      countries: lists.countries,
      cities: lists.cities,
      devices: lists.devices,
      operating_systems: lists.operating_systems,
      browsers: lists.browsers,
      referrers: lists.referrers,
      languages: lists.languages,
    };
  }
}
