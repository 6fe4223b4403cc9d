import { LRUCache } from 'lru-cache';
import type { CachedCode } from './scan-contract';

/**
 * The scan number of each code as this scan process counts it (docs/link-controls.md "Scan numbers"): the larger of
 * the count stored in the database when the code was last read into the cache and the scans this process counted
 * since it started (bots, HEAD requests and expired scans are not counted). With one scan process that is exact:
 * the database only holds scans this process sent. Several processes each add their own scans to the stored count,
 * which catches up with the others' scans at each cache fill.
 */
export class ScanNumbers {
  private readonly counted = new LRUCache<string, { n: number }>({ max: 100_000 });

  /** Counted scans of the code so far. */
  current(code: CachedCode): number {
    const mine = this.counted.get(code.id)?.n ?? 0;
    const stored = code.scanCount ?? 0;
    return mine > stored ? mine : stored;
  }

  /** One more counted scan. */
  add(code: CachedCode): void {
    const entry = this.counted.get(code.id);
    const stored = code.scanCount ?? 0;
    if (entry) entry.n = (entry.n > stored ? entry.n : stored) + 1;
    else this.counted.set(code.id, { n: stored + 1 });
  }
}
