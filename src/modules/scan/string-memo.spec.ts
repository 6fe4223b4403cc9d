import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sampleHash, StringMemo } from './string-memo';

describe('StringMemo', () => {
  it('computes once per distinct string and answers equal strings from the memo', () => {
    const calls: string[] = [];
    const memo = new StringMemo<string>(64, (k) => (calls.push(k), k.toUpperCase()));
    const ua = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15';
    expect(memo.get(ua)).toBe(ua.toUpperCase());
    // A fresh copy of the same text (as each request's header is) is the same key.
    expect(memo.get(Buffer.from(ua).toString('latin1'))).toBe(ua.toUpperCase());
    expect(calls).toEqual([ua]);
  });

  it('never answers one string with another string value, however many share a slot', () => {
    const memo = new StringMemo<string>(2, (k) => `v:${k}`);
    const keys = Array.from({ length: 50 }, (_, i) => `Chrome/${120 + (i % 7)}.0.${i}.0 Safari/537.36`);
    for (let round = 0; round < 3; round++) for (const k of keys) expect(memo.get(k)).toBe(`v:${k}`);
  });

  it('keeps the keys of a crowded bucket, and does not keep keys longer than the limit', () => {
    let computed = 0;
    const memo = new StringMemo<number>(8, (k) => (computed++, k.length), 10);
    const keys = Array.from({ length: 16 }, (_, i) => `k${i}`);
    for (let round = 0; round < 3; round++) for (const k of keys) expect(memo.get(k)).toBe(k.length);
    // 16 keys, 8 slots: the LRU behind the slots answers the others without computing them again.
    expect(computed).toBe(16);
    memo.get('x'.repeat(11));
    memo.get('x'.repeat(11));
    expect(computed).toBe(18);
  });

  it('computes each of 271 real user agents once, and answers them from its slots after that', () => {
    const agents = JSON.parse(readFileSync(join(__dirname, '../../../bench/user-agents.json'), 'utf8')) as { browsers: string[]; bots: string[] };
    const all = [...agents.browsers, ...agents.bots];
    const computed = new Map<string, number>();
    const memo = new StringMemo<number>(4_096, (k) => {
      computed.set(k, (computed.get(k) ?? 0) + 1);
      return k.length;
    });
    for (let round = 0; round < 5; round++) for (const ua of all) expect(memo.get(Buffer.from(ua, 'latin1').toString('latin1'))).toBe(ua.length);
    expect(computed.size).toBe(new Set(all).size);
    expect([...computed.values()].every((n) => n === 1)).toBe(true);
    const buckets = new Map<number, number>();
    for (const ua of new Set(all)) buckets.set(sampleHash(ua) & 511, (buckets.get(sampleHash(ua) & 511) ?? 0) + 1);
    expect(Math.max(...buckets.values())).toBeLessThanOrEqual(8);
  });
});
