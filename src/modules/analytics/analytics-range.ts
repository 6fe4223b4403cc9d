import { ApiException } from '../../common/errors/api.exception';

/** Longest range, in days, of `from`..`to` and of scans_by_day (docs/analytics.md). */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
/** The dates `from` and `to` may name: a range in any time zone, and the day after it, stay four-digit years. */
export const FIRST_DAY = '1970-01-01';
export const LAST_DAY = '9998-12-31';

/** Days since the epoch of a valid YYYY-MM-DD, else null (2026-02-30 is not a date). */
export function dayNumber(s: string): number | null {
  if (!DAY_PATTERN.test(s)) return null;
  const [y, m, d] = s.split('-').map(Number);
  if (y < 1) return null; // PostgreSQL has no year 0
  const back = new Date(0);
  back.setUTCFullYear(y, m - 1, d); // not Date.UTC, which reads years 0–99 as 1900–1999
  const t = back.getTime();
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== m - 1 || back.getUTCDate() !== d) return null;
  return t / DAY_MS;
}

export const dayString = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);
export const utcDay = (d: Date): string => d.toISOString().slice(0, 10);

export interface RequestedRange {
  /** Explicit `from`, as a day number, or null. */
  from: number | null;
  /** Explicit `to`, or null (today). */
  to: number | null;
}

/** Validates the query alone (400s come before any lookup): dates, order, length. */
export function parseRange(query: { from?: string; to?: string }, today: string): RequestedRange {
  const parse = (name: 'from' | 'to'): number | null => {
    const v = query[name];
    if (v === undefined) return null;
    const n = dayNumber(v);
    if (n === null) throw ApiException.invalid(name, `${name} must be a calendar date in the form YYYY-MM-DD, e.g. 2026-11-01`);
    if (v < FIRST_DAY || v > LAST_DAY) throw ApiException.invalid(name, `${name} must be a date from ${FIRST_DAY} to ${LAST_DAY} (got ${v})`);
    return n;
  };
  const from = parse('from');
  const to = parse('to');
  if (from !== null) {
    const end = to ?? dayNumber(today)!;
    const endName = to === null ? `today (${today}, the default of to)` : `to (${dayString(end)})`;
    if (from > end) throw ApiException.invalid('from', `from (${dayString(from)}) must not be after ${endName}`, ['from', 'to']);
    if (end - from + 1 > MAX_RANGE_DAYS) {
      throw ApiException.invalid(
        'from',
        `The range from ${dayString(from)} to ${dayString(end)} spans ${end - from + 1} days; at most ${MAX_RANGE_DAYS} days are allowed`,
        ['from', 'to'],
      );
    }
  }
  return { from, to };
}

export interface ResolvedRange {
  /** What totals and breakdowns cover: null bounds are open (all time when unfiltered). */
  filter: { from: string | null; to: string | null };
  /** What scans_by_day covers, zero-filled, both inclusive; at most MAX_RANGE_DAYS days. */
  series: { from: string; to: string };
}

/**
 * Defaults: `to` = today (UTC). Without `from`, totals and breakdowns cover everything up to `to`, and scans_by_day
 * starts at the code's creation day (or is the single day `to` when the code was created after `to`).
 * - Only `to`: creation day..`to` longer than MAX_RANGE_DAYS → 400 (docs/analytics.md: the series runs from `from`,
 *   default the creation day, to `to`, "longer → 400"), so a far-future `to` never yields a series without the scans.
 * - Neither: a code older than MAX_RANGE_DAYS shows the last MAX_RANGE_DAYS days ending today (a request without
 *   parameters is never refused).
 */
export function resolveRange(req: RequestedRange, createdDay: string, today: string): ResolvedRange {
  if (req.from === null && req.to !== null) {
    const span = req.to - dayNumber(createdDay)! + 1;
    if (span > MAX_RANGE_DAYS) {
      throw ApiException.invalid(
        'to',
        `Without from, the range starts on the code's creation day (${createdDay}); up to ${dayString(req.to)} it spans ${span} days; at most ${MAX_RANGE_DAYS} days are allowed (pass from)`,
        ['from', 'to'],
      );
    }
  }
  const to = req.to ?? dayNumber(today)!;
  const from = req.from ?? Math.min(to, Math.max(dayNumber(createdDay)!, to - (MAX_RANGE_DAYS - 1)));
  return {
    filter: { from: req.from === null ? null : dayString(req.from), to: req.to === null ? null : dayString(req.to) },
    series: { from: dayString(from), to: dayString(to) },
  };
}

/** Every day of the series with its count (0 when absent). */
export function zeroFill(series: { from: string; to: string }, counts: Map<string, number>): { date: string; count: number }[] {
  const out: { date: string; count: number }[] = [];
  for (let n = dayNumber(series.from)!, end = dayNumber(series.to)!; n <= end; n++) {
    const date = dayString(n);
    out.push({ date, count: counts.get(date) ?? 0 });
  }
  return out;
}

/**
 * How an instant range [lo, hi) (ISO, `…Z`, null = open) splits into whole UTC days, which the daily rollups answer,
 * and at most two edges shorter than a day, which only the raw scans can answer exactly (a local day in a zone other
 * than UTC starts and ends inside UTC days). `fromDay`..`toDay` are the whole UTC days (null = open; empty when
 * fromDay > toDay); the lower edge is [lo, min(hi, fromDay 00:00Z)), the upper one [max(lo, fromDay, toDay + 1
 * 00:00Z), hi): together with the days they cover [lo, hi) exactly once.
 */
export function splitUtcDays(lo: string | null, hi: string | null): { fromDay: string | null; toDay: string | null; fromAt: string | null; afterAt: string | null } {
  const date = (iso: string) => iso.slice(0, 10);
  const midnight = (iso: string) => /T00:00:00(\.0+)?Z$/.test(iso);
  const fromDay = lo === null ? null : midnight(lo) ? date(lo) : dayString(dayNumber(date(lo))! + 1);
  const toDay = hi === null ? null : dayString(dayNumber(date(hi))! - 1);
  return {
    fromDay,
    toDay,
    fromAt: fromDay === null ? null : `${fromDay}T00:00:00Z`,
    afterAt: hi === null ? null : `${date(hi)}T00:00:00Z`,
  };
}

/** A part of the range read from raw scans: [from, to) added (sign 1) or taken back (sign -1). */
export interface RawPart {
  from: string;
  to: string;
  sign: 1 | -1;
}

/**
 * The cheapest exact way to break down [lo, hi) by the daily value rollups plus raw scans. splitUtcDays leaves each
 * partial UTC day at an end to the raw scans, up to 23 hours of them (Europe/Paris: a range ending at local midnight
 * leaves 23 hours of its last UTC day). When an edge is the longer part of its UTC day, the whole day is read from the
 * daily rollups instead and the rest of that day (the shorter part, outside the range) is taken back from the raw
 * scans: at most 12 hours of raw scans per end (unless the whole range lies inside one UTC day), one hour or two in
 * zones near UTC. `dayFrom`..`dayTo` are the days of the daily rollups (null = open; empty when dayFrom > dayTo);
 * together with the parts they cover [lo, hi) once. (qr_codes reads the parts from the hourly rollups the same way.)
 */
export function planBreakdownDays(lo: string | null, hi: string | null): { dayFrom: string | null; dayTo: string | null; parts: RawPart[] } {
  const s = splitUtcDays(lo, hi);
  const at = (iso: string) => Date.parse(iso);
  const iso = (ms: number) => new Date(ms).toISOString();
  let { fromDay: dayFrom, toDay: dayTo } = s;
  const parts: RawPart[] = [];
  if (lo !== null) {
    const dayAfter = at(s.fromAt!); // the UTC midnight at or after lo
    const end = hi === null ? dayAfter : Math.min(at(hi), dayAfter);
    const start = at(lo);
    if (end > start) {
      const dayStart = dayAfter - DAY_MS;
      // The whole day minus [its midnight, lo), when that is shorter and the range covers the rest of the day.
      if (end === dayAfter && start - dayStart < end - start) {
        dayFrom = dayString(dayNumber(s.fromDay!)! - 1);
        parts.push({ from: iso(dayStart), to: lo, sign: -1 });
      } else {
        parts.push({ from: lo, to: iso(end), sign: 1 });
      }
    }
  }
  if (hi !== null) {
    const dayStart = at(s.afterAt!); // the UTC midnight at or before hi
    const start = Math.max(lo === null ? -Infinity : at(lo), s.fromAt === null ? -Infinity : at(s.fromAt), dayStart);
    const end = at(hi);
    if (end > start) {
      const dayAfter = dayStart + DAY_MS;
      // The whole day minus [hi, the next midnight), when that is shorter and the range covers the day's start.
      if (start === dayStart && dayAfter - end < end - start) {
        dayTo = dayString(dayNumber(s.toDay!)! + 1);
        parts.push({ from: hi, to: iso(dayAfter), sign: -1 });
      } else {
        parts.push({ from: iso(start), to: hi, sign: 1 });
      }
    }
  }
  return { dayFrom, dayTo, parts };
}
