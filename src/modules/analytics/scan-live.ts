import type { Redis } from 'ioredis';
import type { Environment } from '../../common/auth/api-key-format';
import type { ScanRecord } from '../scan/scan-contract';
import type { ScanRow } from './scan-export';

/**
 * The live feed's Redis stream: one entry per stored batch (field `s` = JSON array of LiveScan), written by the worker
 * after the batch committed, read by every api process (GET /v1/scans/live). Entry ids + the scan's index in the entry
 * are the SSE event ids, so a client resumes with Last-Event-ID from the stream for as long as it keeps the entry.
 */
export const SCAN_LIVE_STREAM = 'scanlink:scans:live';
/** Set by api processes while a live feed is open and refreshed while it stays open; it outlives the last feed by
 * SCAN_LIVE_ACTIVE_TTL_S. Workers publish only while it is set: a workspace nobody watches costs no live entries, and a
 * feed that reconnects with Last-Event-ID within those ten minutes (a laptop waking, a network change) gets every scan
 * stored meanwhile. */
export const SCAN_LIVE_ACTIVE_KEY = 'scanlink:scans:live:active';
export const SCAN_LIVE_ACTIVE_TTL_S = 600;

/** Entries kept (approximately): the resume window. */
export const SCAN_LIVE_MAXLEN = 10_000;

/** A stored scan as the feed carries it: the exported row plus whose it is. */
export interface LiveScan extends ScanRow {
  organization_id: string;
  environment: Environment;
}

export async function publishLive(redis: Redis, records: ScanRecord[], stored: [string, boolean, Environment][]): Promise<void> {
  const byId = new Map(records.map((r) => [r.id, r]));
  const scans: LiveScan[] = [];
  for (const [id, unique, environment] of stored) {
    const r = byId.get(id);
    if (!r) continue;
    scans.push({
      id,
      object: 'scan',
      qr_code_id: r.qr_code_id,
      scanned_at: r.scanned_at,
      country: r.country,
      city: r.city,
      device: r.device,
      os: r.os,
      browser: r.browser,
      referrer: r.referrer,
      language: r.language,
      rule_id: r.rule_id ?? null,
      arm: r.arm ?? null,
      unique,
      expired: r.expired === true,
      organization_id: r.organization_id,
      environment,
    });
  }
  if (scans.length) await redis.xadd(SCAN_LIVE_STREAM, 'MAXLEN', '~', SCAN_LIVE_MAXLEN, '*', 's', JSON.stringify(scans));
}

/** The scans of one live entry, or [] when it is not one. */
export function parseLiveEntry(fields: string[]): LiveScan[] {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== 's') continue;
    try {
      const v = JSON.parse(fields[i + 1]) as unknown;
      return Array.isArray(v) ? (v as LiveScan[]) : [];
    } catch {
      return [];
    }
  }
  return [];
}
