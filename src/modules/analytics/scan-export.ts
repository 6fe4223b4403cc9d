import type { EntityManager } from '@mikro-orm/postgresql';
import { UNKNOWN } from './analytics-engine';
import { FILTER_DIMENSIONS, type FilterDimension } from './analytics-query';

/** One raw scan as GET /v1/scans, its CSV and NDJSON exports and the live feed give it: the qr.scanned fields plus
 * the scan's id, its smart-URL rule and arm, whether it was its visitor's first of the UTC day, and expiry. Never an
 * address or a visitor value (none is stored). */
export interface ScanRow {
  id: string;
  object: 'scan';
  qr_code_id: string;
  scanned_at: string;
  country: string | null;
  city: string | null;
  device: string | null;
  os: string | null;
  browser: string | null;
  referrer: string | null;
  language: string | null;
  rule_id: string | null;
  arm: number | null;
  unique: boolean;
  expired: boolean;
}

/** CSV columns, in order (the header line). */
export const CSV_COLUMNS = ['id', 'qr_code_id', 'scanned_at', 'country', 'city', 'device', 'os', 'browser', 'referrer', 'language', 'rule_id', 'arm', 'unique', 'expired'] as const;

/** RFC 4180 field; a value a spreadsheet would run as a formula (=, +, -, @, tab, CR first) is prefixed with '. The
 * streamed export does the same in SQL (scan-copy.ts); this is its reference (e2e: analytics-export). */
export function csvField(value: unknown): string {
  let s = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvLine = (row: ScanRow): string => `${CSV_COLUMNS.map((c) => csvField(row[c])).join(',')}\r\n`;

type DbRow = Omit<ScanRow, 'object' | 'rule_id' | 'scanned_at'> & { rule_id: string | null; at: string };

// Built field by field in the ScanRow order (JSON key order), with no Date round trip: the database formats the time.
const toRow = (r: DbRow): ScanRow => ({
  id: r.id,
  object: 'scan',
  qr_code_id: r.qr_code_id,
  scanned_at: r.at,
  country: r.country,
  city: r.city,
  device: r.device,
  os: r.os,
  browser: r.browser,
  referrer: r.referrer,
  language: r.language,
  rule_id: r.rule_id === '' ? null : r.rule_id,
  arm: r.arm,
  unique: r.unique,
  expired: r.expired,
});

export interface ScanSelection {
  organizationId: string;
  /** The codes (already checked to belong to the workspace and environment). */
  ids: string[];
  /** Instants, hi exclusive; null = open. */
  lo: string | null;
  hi: string | null;
  /** Dimension filters (`country=FR`), matched as GET /v1/analytics matches them. */
  filters: Partial<Record<FilterDimension, string>>;
}

/**
 * The dimension filters as SQL conditions on the scans `s`, exactly as the analytics endpoints apply them: compared
 * case-insensitively, `Unknown` matching a value that was not determined (null). `value` writes a (lower-cased) value
 * into the statement: a bound-parameter placeholder or an escaped literal.
 */
export function dimensionConditions(filters: ScanSelection['filters'], value: (v: string) => string): string {
  return FILTER_DIMENSIONS.filter((d) => filters[d] !== undefined)
    .map((d) => `and lower(coalesce(s.${d}, '${UNKNOWN.toLowerCase()}')) = ${value(filters[d]!.toLowerCase())}`)
    .join(' ');
}

/**
 * One keyset page of raw scans in (scanned_at, id) order, after `after` (exclusive): scans_org_time_idx
 * (organization, time, id) gives the order, the code list (the workspace's environment) filters.
 */
export async function scanPage(
  em: EntityManager,
  sel: ScanSelection,
  order: 'asc' | 'desc',
  after: { at: string; id: string } | null,
  limit: number,
): Promise<(ScanRow & { at: string })[]> {
  const cmp = order === 'asc' ? '>' : '<';
  const ids = sel.ids.filter((id) => /^[0-9A-Za-z_]+$/.test(id));
  const filterValues: string[] = [];
  const filterSql = dimensionConditions(sel.filters, (v) => (filterValues.push(v), '?'));
  const rows = await em.execute<DbRow[]>(
    // The formatted time is not named scanned_at: ORDER BY would take that output column (text) and sort the whole
    // range instead of following the index.
    `select s.id, s.qr_code_id, to_char(s.scanned_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
            s.country, s.city, s.device, s.os, s.browser, s.referrer, s.language, s.rule_id, s.arm, s.visit_unique as "unique", s.expired
       from scans s
      where s.organization_id = ? and s.qr_code_id = any(?::text[])
        and s.scanned_at >= coalesce(?::timestamptz, '-infinity') and s.scanned_at < coalesce(?::timestamptz, 'infinity')
        ${filterSql}
        ${after ? `and (s.scanned_at, s.id) ${cmp} (?::timestamptz, ?)` : ''}
      order by s.scanned_at ${order}, s.id ${order}
      limit ${Math.floor(limit)}`,
    [
      sel.organizationId,
      // A constant array (ids are [0-9A-Za-z_] only): PostgreSQL then hashes it and estimates the selection, so a
      // whole workspace reads scans_org_time_idx in order and stops at the page's end instead of sorting the range
      // (a semi-join with an unknown row count did: about a second a page at 1 M scans).
      `{${ids.join(',')}}`,
      sel.lo,
      sel.hi,
      ...filterValues,
      ...(after ? [after.at, after.id] : []),
    ],
  );
  // scanned_at is stored with milliseconds (timestamptz(3)): its text is also the keyset position.
  return rows.map((r) => ({ ...toRow(r), at: r.at }));
}
