import type { Redis } from 'ioredis';

/** Redis key of a code's scan number as the scan host counts it: `scanlink:scan-number:<code id>`, kept by the scan
 * processes for codes whose number matters (a scan limit or a `scans` rule; modules/scan/scan-numbers.ts). */
export const SCAN_NUMBER_KEY_PREFIX = 'scanlink:scan-number:';

/**
 * A code's counted scans as the scan host numbers them, for the processes that do not count scans themselves (the
 * api's rule tester, a lead post on the scan host's Nest routes): the scan processes' shared total (synced every
 * 250 ms), or `stored` (qr_codes.scan_count, which lags them by the worker's ingestion) when that is ahead or Redis
 * has no total.
 */
export async function sharedScanCount(redis: Redis, codeId: string, stored: number): Promise<number> {
  const shared = Number(await redis.get(SCAN_NUMBER_KEY_PREFIX + codeId).catch(() => null));
  return Number.isFinite(shared) && shared > stored ? shared : stored;
}
