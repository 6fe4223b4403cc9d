/**
 * A bounded memo of values computed from request header strings (user agents, Accept-Language), for the scan hot
 * path. Every request brings a fresh copy of its header strings, and a JavaScript Map hashes every character of a
 * fresh string on each lookup (callgrind put string hashing at about 2,600 instructions a redirect, most of it the
 * user agent's ~140 characters). Here a slot is chosen from the length and at most 16 characters spread over the string (a few dozen
 * instructions) and the stored key is compared with `===` (a memory compare): the answer is always the one computed
 * for an identical string, a weak slot choice only costs extra misses.
 *
 * Two-way: a key goes to one of two neighbouring slots (the other keeps the previous occupant), so two busy keys
 * that share a slot do not evict each other on every request. Keys longer than `maxKeyLength` are not kept.
 */
export class StringMemo<V> {
  private readonly keys: (string | undefined)[];
  private readonly values: (V | undefined)[];
  /** Which of a pair of slots the next new key replaces (one bit per pair). */
  private readonly next: Uint8Array;
  private readonly mask: number;

  /** `slots`: a power of two (rounded up), the most keys kept. */
  constructor(
    slots: number,
    private readonly compute: (key: string) => V,
    private readonly maxKeyLength = 512,
  ) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(2, slots)));
    this.keys = new Array<string | undefined>(size).fill(undefined);
    this.values = new Array<V | undefined>(size).fill(undefined);
    this.next = new Uint8Array(size / 2);
    this.mask = size - 2;
  }

  get(key: string): V {
    const slot = sampleHash(key) & this.mask;
    const keys = this.keys;
    if (keys[slot] === key) return this.values[slot] as V;
    if (keys[slot + 1] === key) return this.values[slot + 1] as V;
    const value = this.compute(key);
    if (key.length <= this.maxKeyLength) {
      const pair = slot >> 1;
      const at = slot + this.next[pair];
      this.next[pair] ^= 1;
      keys[at] = key;
      this.values[at] = value;
    }
    return value;
  }
}

/** A hash of the length and at most 16 characters spread over the string, last one included. */
export function sampleHash(s: string): number {
  const n = s.length;
  const step = (n >> 4) + 1;
  let h = n | 0;
  for (let i = n - 1; i >= 0; i -= step) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}
