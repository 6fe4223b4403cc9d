import type { ScanRecord } from '../scan/scan-contract';

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
  return out;
}

/**
 * Decodes one stream entry (ioredis' flat `[field, value, …]` list; field `b` = JSON array of ScanRecord). Returns null
 * for an entry that is not a batch at all; individually malformed records are dropped and counted.
 */
export function parseScanEntry(fields: string[]): ParsedEntry | null {
  let body: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'b') body = fields[i + 1];
  if (body === undefined) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const records: ScanRecord[] = [];
  for (const raw of parsed) {
    const rec = toScanRecord(raw);
    if (rec) records.push(rec);
  }
  return { records, invalid: parsed.length - records.length };
}
