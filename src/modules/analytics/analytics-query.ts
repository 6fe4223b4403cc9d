import { ApiException } from '../../common/errors/api.exception';
import { CODE_TYPES } from '../qr-codes/code-kinds';
import { timeZoneSpelling } from '../targets/smart-rules';
import { dayNumber, dayString, MAX_RANGE_DAYS, parseRange, type RequestedRange } from './analytics-range';

/** Series intervals; `day` is the default. */
export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];
/** Most points a series may have (an interval too fine for the range is refused). */
export const MAX_SERIES_POINTS = 2_000;
/** Dimensions a request may filter by (query parameter = dimension). */
export const FILTER_DIMENSIONS = ['country', 'city', 'device', 'os', 'browser', 'referrer', 'language'] as const;
export type FilterDimension = (typeof FILTER_DIMENSIONS)[number];
/** Most codes one workspace request may name. */
export const MAX_CODE_IDS = 100;

/** Zone names Intl and PostgreSQL both read as plain UTC (offset 0 all year). */
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'Etc/UCT', 'UCT', 'Etc/GMT', 'GMT', 'Etc/GMT0', 'Etc/GMT+0', 'Etc/GMT-0', 'GMT0', 'Etc/Universal', 'Universal', 'Etc/Zulu', 'Zulu', 'Etc/Greenwich', 'Greenwich']);

export interface AnalyticsRequest {
  range: RequestedRange;
  /** The zone the queries use: ICU's canonical id (PostgreSQL knows every one of them). */
  timezone: string;
  /** The zone as the answer names it: the name that was sent, in its IANA spelling (`asia/kolkata` → `Asia/Kolkata`;
   * ICU's canonical id would be the retired `Asia/Calcutta`). */
  zoneName: string;
  /** The zone is UTC all year: the daily rollups (UTC days) answer day boundaries exactly. */
  utc: boolean;
  interval: Interval;
  filters: Partial<Record<FilterDimension, string>>;
  /** Today in the zone (YYYY-MM-DD). */
  today: string;
}

export interface WorkspaceFilters {
  folderId?: string;
  tag?: string;
  type?: string;
  codeIds: string[];
}

const TZ_PATTERN = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/** The IANA zone's canonical name, or null when it is not one. */
export function canonicalZone(name: string): string | null {
  if (!TZ_PATTERN.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The calendar date (YYYY-MM-DD) of `at` in `timezone`. */
export function localDay(at: Date, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** The calendar date (YYYY-MM-DD) of `at` in the request's zone (UTC without a conversion). */
export function dayOfRequest(at: Date, req: Pick<AnalyticsRequest, 'utc' | 'timezone'>): string {
  return req.utc ? at.toISOString().slice(0, 10) : localDay(at, req.timezone);
}

/** One value of a query parameter: a repeated parameter is refused (400 naming it). */
function single(raw: Record<string, unknown>, name: string, form?: string): string | undefined {
  const v = raw[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw ApiException.invalid(name, `${name} must be given once${form ? `, ${form}` : ''}`);
  return v;
}

const DATE_FORM = 'a calendar date in the form YYYY-MM-DD, e.g. 2026-11-01';

/** Every value of a parameter that may repeat (`qr_code_id=a&qr_code_id=b`, `qr_code_id[]=a`, or comma-separated). */
function many(raw: Record<string, unknown>, ...names: string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    const v = raw[name];
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) {
      if (typeof item !== 'string') throw ApiException.invalid(names[0], `${names[0]} must be a list of ids`);
      out.push(...item.split(',').map((s) => s.trim()));
    }
  }
  return out;
}

/**
 * Validates an analytics query before anything is looked up: every error is a 400 naming the parameter.
 * `extra` names the further parameters the endpoint accepts (workspace filters); anything else is refused.
 */
export function parseAnalyticsQuery(raw: Record<string, unknown>, now: Date, extra: readonly string[] = []): AnalyticsRequest {
  const known = new Set<string>(['from', 'to', 'timezone', 'interval', ...FILTER_DIMENSIONS, ...extra]);
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      throw ApiException.invalid(
        key,
        `Unknown query parameter '${key}'. Filters: ${FILTER_DIMENSIONS.join(', ')}; also from, to, timezone, interval${extra.length ? ', ' + extra.join(', ') : ''}`,
      );
    }
  }
  const tzRaw = single(raw, 'timezone');
  let timezone = 'UTC';
  let zoneName = 'UTC';
  if (tzRaw !== undefined) {
    const zone = canonicalZone(tzRaw);
    if (!zone) throw ApiException.invalid('timezone', `timezone must be an IANA time zone name such as Europe/Paris or America/New_York (got '${tzRaw.slice(0, 64)}')`);
    timezone = zone;
    zoneName = timeZoneSpelling(tzRaw);
  }
  const utc = UTC_NAMES.has(timezone);
  const today = dayOfRequest(now, { utc, timezone });
  const from = single(raw, 'from', DATE_FORM);
  const to = single(raw, 'to', DATE_FORM);
  const range = parseRange({ from, to }, today);
  const intervalRaw = single(raw, 'interval');
  if (intervalRaw !== undefined && !(INTERVALS as readonly string[]).includes(intervalRaw)) {
    throw ApiException.invalid('interval', `interval must be one of ${INTERVALS.join(', ')}`);
  }
  const interval = (intervalRaw ?? 'day') as Interval;
  const filters: Partial<Record<FilterDimension, string>> = {};
  for (const d of FILTER_DIMENSIONS) {
    const v = single(raw, d);
    if (v === undefined) continue;
    if (v.trim() === '' || v.length > 255) throw ApiException.invalid(d, `${d} must be a value of the ${d} breakdown (1–255 characters)`);
    filters[d] = v.trim();
  }
  return { range, timezone, zoneName, utc, interval, filters, today };
}

/** The workspace filters of GET /analytics and GET /scans: ids checked for form and count. */
export function parseWorkspaceFilters(raw: Record<string, unknown>): WorkspaceFilters {
  const codeIds = [...new Set(many(raw, 'qr_code_id', 'qr_code_id[]'))];
  if (codeIds.length > MAX_CODE_IDS) throw ApiException.invalid('qr_code_id', `At most ${MAX_CODE_IDS} qr_code_id values may be given (got ${codeIds.length})`);
  for (const id of codeIds) {
    if (!/^s?qr_[0-9A-Za-z]{1,64}$/.test(id)) throw ApiException.invalid('qr_code_id', `qr_code_id must be QR code ids (qr_…); '${id.slice(0, 40)}' is not one`);
  }
  const folderId = single(raw, 'folder_id');
  if (folderId !== undefined && !/^fld_[0-9A-Za-z]{1,64}$/.test(folderId)) throw ApiException.invalid('folder_id', 'folder_id must be a folder id (fld_…)');
  const tag = single(raw, 'tag');
  if (tag !== undefined && (tag.trim() === '' || tag.length > 100)) throw ApiException.invalid('tag', 'tag must be a tag name (1–100 characters)');
  const type = single(raw, 'type');
  if (type !== undefined && !CODE_TYPES.includes(type)) throw ApiException.invalid('type', `type must be one of ${CODE_TYPES.join(', ')}`);
  return { folderId, tag, type, codeIds };
}

/** Points of the series of `interval` from `from` to `to` (local dates, inclusive), for the 2,000-point limit. */
export function seriesPoints(interval: Interval, from: string, to: string): number {
  const days = dayNumber(to)! - dayNumber(from)! + 1;
  switch (interval) {
    case 'hour':
      return days * 24;
    case 'day':
      return days;
    case 'week':
      return Math.ceil((days + 6) / 7);
    case 'month': {
      const [fy, fm] = from.split('-').map(Number);
      const [ty, tm] = to.split('-').map(Number);
      return (ty - fy) * 12 + (tm - fm) + 1;
    }
  }
}

/** Longest range, in days, an hourly series serves. */
export const MAX_HOURLY_DAYS = 31;

/** Refuses an hourly series over more than MAX_HOURLY_DAYS days, and any series of more than MAX_SERIES_POINTS points
 * (400 naming interval). */
export function checkSeriesPoints(interval: Interval, series: { from: string; to: string }): void {
  const days = dayNumber(series.to)! - dayNumber(series.from)! + 1;
  if (interval === 'hour' && days > MAX_HOURLY_DAYS) {
    throw ApiException.invalid(
      'interval',
      `interval=hour serves ranges of up to ${MAX_HOURLY_DAYS} days; from ${series.from} to ${series.to} is ${days} days (choose interval=day or a shorter range)`,
      ['interval', 'from', 'to'],
    );
  }
  const points = seriesPoints(interval, series.from, series.to);
  if (points > MAX_SERIES_POINTS) {
    throw ApiException.invalid(
      'interval',
      `interval=${interval} from ${series.from} to ${series.to} gives ${points} points; at most ${MAX_SERIES_POINTS} are allowed (choose a coarser interval or a shorter range)`,
      ['interval', 'from', 'to'],
    );
  }
}

/** RFC 3339 of a local wall time (`YYYY-MM-DDTHH:MM:SS`) at `offsetMinutes` east of UTC. */
export function rfc3339(local: string, offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(Math.round(offsetMinutes));
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}

export { dayString, MAX_RANGE_DAYS };
