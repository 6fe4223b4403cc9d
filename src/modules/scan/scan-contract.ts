/**
 * What the scan host, the lead form and the worker's scan ingestion agree on. Nothing here may carry an IP address.
 *
 * Flow: a scan process answers `/{short_code}` from its cache, enriches the request in memory (enrich.ts), appends a
 * ScanRecord to an in-memory buffer and, every SCAN_FLUSH_INTERVAL_MS (or at 500 records, and on shutdown), writes
 * the buffer as entries of the Redis stream SCAN_STREAM (field `c` = encodeScanBatch; the worker also reads the
 * older field `b` = JSON array of ScanRecord), pipelined. The
 * worker reads the stream through the consumer group SCAN_STREAM_GROUP, stores each entry's scans in one transaction
 * (idempotent by ScanRecord.id), then XACKs it; entries a dead consumer left pending are claimed again.
 */
export const SCAN_STREAM = 'scanlink:scans';
export const SCAN_STREAM_GROUP = 'scan-ingest';
/** Most records one stream entry carries. */
export const SCAN_BATCH_MAX = 500;

/** Stream field of an entry written by encodeScanBatch. */
export const SCAN_COMPACT_FIELD = 'c';

/**
 * One stream entry's scans, compact: `{"v":1,"k":[[qr_code_id, organization_id], …],"s":[string, …],"r":[[id, k, t,
 * country, city, device, os, browser, referrer, language, visitor, rule_id, arm, expired], …]}` where `k` indexes the
 * code list and `t`, the seven dimensions, `visitor` and `rule_id` index the string list (`-1` = null; for `rule_id`
 * `-2` = absent, no rule involved), `arm` is a number or null and `expired` is 1 or 0. Rows of 10 elements (written
 * before visitors, rules and expiry existed) are still read. Scans of one entry repeat a few codes, times and dimension values,
 * so this is about a sixth of the JSON of the records and much cheaper to write: on the scan host, serializing and
 * sending the scans was a quarter of a redirect's cost. The worker decodes it (analytics/scan-entry.ts).
 */
export function encodeScanBatch(records: readonly ScanRecord[]): string {
  const codeIndex = new Map<string, number>();
  const codes: [string, string][] = [];
  const stringIndex = new Map<string, number>();
  const strings: string[] = [];
  const str = (v: string | null): number => {
    if (v === null) return -1;
    let i = stringIndex.get(v);
    if (i === undefined) {
      i = strings.length;
      strings.push(v);
      stringIndex.set(v, i);
    }
    return i;
  };
  const rows = new Array<unknown[]>(records.length);
  for (let n = 0; n < records.length; n++) {
    const x = records[n];
    let k = codeIndex.get(x.qr_code_id);
    if (k === undefined) {
      k = codes.length;
      codes.push([x.qr_code_id, x.organization_id]);
      codeIndex.set(x.qr_code_id, k);
    }
    rows[n] = [
      x.id,
      k,
      str(x.scanned_at),
      str(x.country),
      str(x.city),
      str(x.device),
      str(x.os),
      str(x.browser),
      str(x.referrer),
      str(x.language),
      str(x.visitor ?? null),
      x.rule_id === undefined ? -2 : str(x.rule_id),
      x.arm ?? null,
      x.expired ? 1 : 0,
    ];
  }
  return JSON.stringify({ v: 1, k: codes, s: strings, r: rows });
}

/** Redis key of a cached code (JSON of CachedCode), `SCAN_CODE_KEY_PREFIX + <domain id or empty> + ':' + short_code`
 * (domains/scan-site.ts siteKey). */
export const SCAN_CODE_KEY_PREFIX = 'scanlink:code:';

/** The allowlisted, derived facts about one scan (also qr.scanned's fields and lead.captured's scan_context). */
export interface ScanContext {
  /** ISO 3166-1 alpha-2 country code, e.g. "GB". */
  country: string | null;
  city: string | null;
  /** "Mobile", "Tablet", "Desktop", … */
  device: string | null;
  /** "iOS", "Android", "Windows", … */
  os: string | null;
  /** "Mobile Safari", "Chrome", … */
  browser: string | null;
  /** The referring page's host name, lower case, e.g. "news.example.com". */
  referrer: string | null;
  /** The primary subtag of the first Accept-Language entry, lower case, e.g. "en". */
  language: string | null;
}

/** One counted scan, as queued by the scan process and stored by the worker. */
export interface ScanRecord extends ScanContext {
  /** `scan_…`, made by the scan process: the worker's idempotency key. */
  id: string;
  qr_code_id: string;
  organization_id: string;
  /** ISO 8601 UTC with milliseconds. */
  scanned_at: string;
  /**
   * The visitor of the day: base64url HMAC-SHA256 of (code id, client address, user agent) under the salt of the UTC
   * day (visitor-salt.ts), made by the scan host; the address itself never leaves the scan process. The salt is
   * deleted after 48 hours, so the value links nothing afterwards. The worker uses it only to decide whether the scan is
   * the visitor's first of the day on this code (scan_visitors, pruned after two days); it is never stored with the
   * scan. Absent or null (no salt available): the scan counts as a new visitor.
   */
  visitor?: string | null;
  /**
   * The smart-URL rule that chose the destination: absent = the code has no rules (the scan is not in the `rules`
   * breakdown); null = the code's default destination; else the rule's id (target.rules[].id).
   */
  rule_id?: string | null;
  /** The split arm (index) that was picked, or null/absent when no split. */
  arm?: number | null;
  /** The link had expired (link controls): stored and counted in expired_scans, never in total_scans. */
  expired?: boolean;
}

/** A dynamic code as the scan host needs it: everything to redirect or render without the database. */
export interface CachedCode {
  id: string;
  organizationId: string;
  shortCode: string;
  name: string;
  /** Target type: url, youtube, …, text, wifi, vcard, event, email, sms, location, whatsapp, telegram, appstores,
   * review, linkpage, form, menupage (see docs/targets.md). */
  type: string;
  /** The stored target fields (qr_codes.target). */
  target: Record<string, unknown>;
  /** live | trashed | paused */
  status: string;
  isActive: boolean;
  /** Link controls and the scan-number base (docs/link-controls.md); absent in copies cached by older versions. */
  scanCount?: number;
  /** epoch ms */
  expiresAt?: number | null;
  maxScans?: number | null;
  expiredUrl?: string | null;
  /** set when the code has a password: a tag of its hash that the unlock cookie is bound to (never the hash) */
  passwordTag?: string | null;
}
