import { SCAN_COMPACT_FIELD, type ScanRecord } from '../scan/scan-contract';

/** The dimensions a scan carries, in the order of scan_day_values.dimension's check constraint. */
export const SCAN_DIMENSIONS = ['country', 'city', 'device', 'os', 'browser', 'referrer', 'language'] as const;
export type ScanDimension = (typeof SCAN_DIMENSIONS)[number];

/** Longest stored dimension value: enrich() already cuts to 100 (255 for hosts); this only guards the btree key size. */
const MAX_VALUE_LENGTH = 255;
const MAX_ID_LENGTH = 100;

export interface ParsedEntry {
  records: ScanRecord[];
  /** Records of the entry that were not well-formed and are dropped (counted, never logged with content). */
  invalid: number;
}

const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_LENGTH;

function dimension(v: unknown): string | null | undefined {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') return undefined;
  const s = v.trim();
  return s ? s.slice(0, MAX_VALUE_LENGTH) : null;
}

/** One ScanRecord from untrusted JSON, or null when it is not one. Extra properties are dropped. */
export function toScanRecord(raw: unknown): ScanRecord | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  if (!isId(r.id) || !isId(r.qr_code_id) || !isId(r.organization_id) || typeof r.scanned_at !== 'string') return null;
  const at = new Date(r.scanned_at);
  const year = at.getUTCFullYear();
  if (Number.isNaN(at.getTime()) || year < 2000 || year > 9999) return null;
  const out: ScanRecord = {
    id: r.id,
    qr_code_id: r.qr_code_id,
    organization_id: r.organization_id,
    scanned_at: at.toISOString(),
    country: null,
    city: null,
    device: null,
    os: null,
    browser: null,
    referrer: null,
    language: null,
  };
  for (const d of SCAN_DIMENSIONS) {
    const v = dimension(r[d]);
    if (v === undefined) return null;
    out[d] = v;
  }
  // Optional fields (visitors, smart-URL rules, link expiry): a wrong type makes the record invalid.
  if (r.visitor !== undefined && r.visitor !== null) {
    if (typeof r.visitor !== 'string' || r.visitor.length === 0 || r.visitor.length > MAX_ID_LENGTH) return null;
    out.visitor = r.visitor;
  }
  if (r.rule_id !== undefined) {
    if (r.rule_id !== null && !isId(r.rule_id)) return null;
    out.rule_id = r.rule_id;
  }
  if (r.arm !== undefined && r.arm !== null) {
    if (typeof r.arm !== 'number' || !Number.isInteger(r.arm) || r.arm < 0 || r.arm > 32_767) return null;
    out.arm = r.arm;
  }
  if (r.expired !== undefined && r.expired !== null) {
    if (typeof r.expired !== 'boolean') return null;
    if (r.expired) out.expired = true;
  }
  return out;
}

/** A value no dimension accepts: an index that points nowhere makes the record invalid rather than "Unknown". */
const BAD_INDEX = Object.freeze({});

/** The raw records of a compact entry (scan-contract.ts encodeScanBatch), for toScanRecord to check one by one; null
 * when the entry is not one. */
function decodeCompact(parsed: unknown): unknown[] | null {
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
  const { v, k, s, r } = parsed as { v?: unknown; k?: unknown; s?: unknown; r?: unknown };
  if (v !== 1 || !Array.isArray(k) || !Array.isArray(s) || !Array.isArray(r)) return null;
  const str = (i: unknown): unknown => (i === -1 ? null : typeof i === 'number' && typeof s[i] === 'string' ? s[i] : BAD_INDEX);
  return r.map((row: unknown) => {
    if (!Array.isArray(row) || (row.length !== 10 && row.length !== 14)) return null;
    const code: unknown = typeof row[1] === 'number' ? k[row[1]] : undefined;
    if (!Array.isArray(code)) return null;
    const extended =
      row.length === 14
        ? {
            visitor: str(row[10]),
            rule_id: row[11] === -2 ? undefined : str(row[11]),
            arm: row[12] === null ? null : typeof row[12] === 'number' ? row[12] : BAD_INDEX,
            expired: row[13] === 1 ? true : row[13] === 0 ? false : BAD_INDEX,
          }
        : {};
    return {
      ...extended,
      id: row[0],
      qr_code_id: code[0],
      organization_id: code[1],
      scanned_at: str(row[2]),
      country: str(row[3]),
      city: str(row[4]),
      device: str(row[5]),
      os: str(row[6]),
      browser: str(row[7]),
      referrer: str(row[8]),
      language: str(row[9]),
    };
  });
}

/**
 * Decodes one stream entry (ioredis' flat `[field, value, …]` list): field `c` = a compact batch (encodeScanBatch),
 * or field `b` = a JSON array of ScanRecord (what scan processes wrote before). Returns null for an entry that is not
 * a batch at all; individually malformed records are dropped and counted.
 */
export function parseScanEntry(fields: string[]): ParsedEntry | null {
  let compact: string | undefined;
  let plain: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === SCAN_COMPACT_FIELD) compact = fields[i + 1];
    else if (fields[i] === 'b') plain = fields[i + 1];
  }
  const body = compact ?? plain;
  if (body === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const raws = compact !== undefined ? decodeCompact(parsed) : Array.isArray(parsed) ? (parsed as unknown[]) : null;
  if (!raws) return null;
  const records: ScanRecord[] = [];
  for (const raw of raws) {
    const rec = toScanRecord(raw);
    if (rec) records.push(rec);
  }
  return { records, invalid: raws.length - records.length };
}
