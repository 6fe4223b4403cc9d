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

  it('keeps two keys of one slot, and does not keep keys longer than the limit', () => {
    let computed = 0;
    const memo = new StringMemo<number>(2, (k) => (computed++, k.length), 10);
    memo.get('a');
    memo.get('b');
    memo.get('a');
    memo.get('b');
    expect(computed).toBe(2);
    memo.get('x'.repeat(11));
    memo.get('x'.repeat(11));
    expect(computed).toBe(4);
  });

  it('spreads user agents that differ in one version digit over different slots', () => {
    const a = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
    const b = a.replace('Chrome/124', 'Chrome/125');
    const slots = new Set([a, b, a.replace('Win64', 'Win32'), a.replace('10.0', '11.0')].map((s) => sampleHash(s) & 4094));
    expect(slots.size).toBeGreaterThan(1);
  });
});
