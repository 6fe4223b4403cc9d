import { LRUCache } from 'lru-cache';

/** Keys compared per slot choice (a bucket): busy keys that share a bucket do not evict each other. */
const WAYS = 8;

/**
 * A bounded memo of values computed from request header strings (user agents, Accept-Language), for the scan hot
 * path. Every request brings a fresh copy of its header strings, and a JavaScript Map hashes every character of a
 * fresh string on each lookup (callgrind put string hashing at about 2,600 instructions a redirect, most of it the
 * user agent's ~140 characters). Here a bucket of WAYS slots is chosen from the length and every third or so
 * character (sampleHash), and the keys kept there are compared with `===` (a length check, then a memory compare):
 * the answer is always the one computed for an identical string; a weak bucket choice only costs extra misses.
 *
 * A miss falls back to an LRU keyed by the whole string (the cost of a Map lookup, as before), and only then
 * computes, so strings that crowd one bucket (user agents differing in a digit the sample skipped) are never
 * recomputed while the LRU holds them. Keys longer than `maxKeyLength` are computed every time, never kept.
 */
export class StringMemo<V> {
  private readonly keys: (string | undefined)[];
  private readonly values: (V | undefined)[];
  /** Per bucket, the slot the next new key takes (round robin). */
  private readonly next: Uint8Array;
  private readonly mask: number;
  private readonly backing: LRUCache<string, { value: V }>;

  /** `slots`: rounded up to a power of two (at least WAYS); the LRU behind holds twice as many keys. */
  constructor(
    slots: number,
    private readonly compute: (key: string) => V,
    private readonly maxKeyLength = 512,
  ) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(WAYS, slots)));
    this.keys = new Array<string | undefined>(size).fill(undefined);
    this.values = new Array<V | undefined>(size).fill(undefined);
    this.next = new Uint8Array(size / WAYS);
    this.mask = size / WAYS - 1;
    this.backing = new LRUCache({ max: 2 * size });
  }

  get(key: string): V {
    const bucket = sampleHash(key) & this.mask;
    const first = bucket * WAYS;
    const keys = this.keys;
    for (let i = first; i < first + WAYS; i++) if (keys[i] === key) return this.values[i] as V;
    if (key.length > this.maxKeyLength) return this.compute(key);
    let known = this.backing.get(key);
    if (!known) {
      known = { value: this.compute(key) };
      this.backing.set(key, known);
    }
    const at = first + this.next[bucket];
    this.next[bucket] = (this.next[bucket] + 1) % WAYS;
    keys[at] = key;
    this.values[at] = known.value;
    return known.value;
  }
}

/** A hash of the length and at most 64 characters spread over the string, last one included. */
export function sampleHash(s: string): number {
  const n = s.length;
  const step = (n >> 6) + 1;
  let h = n | 0;
  for (let i = n - 1; i >= 0; i -= step) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}
