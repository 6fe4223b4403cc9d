import type { Redis } from 'ioredis';
import { SCAN_NUMBER_KEY_PREFIX } from '../../common/redis/scan-number-key';
import type { CachedCode } from './scan-contract';

/** A shared count nobody touched for this long is dropped (and seeded again from the stored count when needed). */
const KEY_TTL_SECONDS = 2 * 24 * 3600;
/** Raises the key to this process's view of the total when it is missing or behind it (a key left from a time the
 * code's number did not matter, while scans went on), adds this process's new scans, returns the total. A process's
 * view is a total it read before, or the stored count: never ahead of the true number. */
const ADD = `
local kept = tonumber(redis.call('GET', KEYS[1]) or '-1')
if kept < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
local total = redis.call('INCRBY', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return total`;

interface Count {
  /** the shared total at the last sync (or the stored count before the first one) */
  base: number;
  /** scans counted here since, not yet added to the shared total */
  pending: number;
  /** scans being added right now */
  sending: number;
  /** last time a scan asked for this code (ms), to sync only the codes in use */
  usedAt: number;
}

/**
 * The scan number of each code with rules or link controls (docs/link-controls.md "Scan numbers"): counted scans so
 * far. This process counts its own scans at once; every SYNC interval (250 ms) it adds them to a total shared by
 * every scan process in Redis and reads that total back, for every code used in the last minute. So with one process
 * the number is exact, and with several it lags by at most the other processes' scans of the last interval or two.
 * The total starts from the count stored in the database; while Redis is unreachable each process goes on counting
 * on its own and adds its scans when Redis is back.
 */
/** Codes whose numbers a process keeps. */
const MAX_CODES = 100_000;

export class ScanNumbers {
  /** Per code id. A plain Map (a lookup per gated scan, no recency bookkeeping): beyond MAX_CODES the codes counted
   * first are forgotten at the next sync (their number starts again from the cached copy's stored count). */
  private readonly counts = new Map<string, Count>();

  private entry(code: CachedCode): Count {
    let c = this.counts.get(code.id);
    if (!c) {
      c = { base: code.scanCount ?? 0, pending: 0, sending: 0, usedAt: 0 };
      this.counts.set(code.id, c);
    }
    return c;
  }

  /** Counted scans of the code so far. */
  current(code: CachedCode, now = Date.now()): number {
    const c = this.entry(code);
    c.usedAt = now;
    const mine = c.base + c.pending + c.sending;
    const stored = code.scanCount ?? 0;
    return mine > stored ? mine : stored;
  }

  /** One more counted scan. */
  add(code: CachedCode): void {
    const c = this.entry(code);
    // A stored count ahead of this process's view (another process's scans, read at a cache fill): count on from it.
    const mine = c.base + c.pending + c.sending;
    const stored = code.scanCount ?? 0;
    if (stored > mine) c.base += stored - mine;
    c.pending++;
  }

  /** Adds this process's new scans to the shared totals and reads them back (codes used in the last minute). */
  async sync(redis: Redis, now = Date.now()): Promise<void> {
    const batch: [string, Count, number][] = [];
    for (const [id, c] of this.counts.entries()) {
      if (now - c.usedAt > 60_000 && c.pending === 0) continue;
      batch.push([id, c, c.pending]);
      c.sending += c.pending;
      c.pending = 0;
    }
    for (const [id, c] of this.counts) {
      if (this.counts.size <= MAX_CODES) break;
      if (c.pending === 0 && c.sending === 0) this.counts.delete(id);
    }
    if (batch.length === 0) return;
    const pipeline = redis.pipeline();
    for (const [id, c, n] of batch) pipeline.eval(ADD, 1, SCAN_NUMBER_KEY_PREFIX + id, String(c.base), String(n), String(KEY_TTL_SECONDS));
    let results: [Error | null, unknown][] | null = null;
    try {
      results = await pipeline.exec();
    } catch {
      results = null;
    }
    batch.forEach(([, c, n], i) => {
      c.sending -= n;
      const [err, total] = results?.[i] ?? [new Error('no answer'), null];
      if (err || typeof total !== 'number') c.pending += n; // added on a later sync
      else c.base = total;
    });
  }
}
