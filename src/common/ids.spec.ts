import { randomBytes } from 'node:crypto';

jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof import('node:crypto')>('node:crypto');
  return { ...actual, randomBytes: jest.fn((n: number) => actual.randomBytes(n)) };
});
import { hasPrefix, newId, newShortCode, randomBase62, RESERVED_SHORT_CODES } from './ids';

describe('ids', () => {
  it('makes prefixed ids with 20 base62 characters', () => {
    for (const prefix of ['qr', 'sqr', 'fld', 'batch', 'evt', 'key', 'org', 'we', 'wd', 'req'] as const) {
      expect(newId(prefix)).toMatch(new RegExp(`^${prefix}_[0-9A-Za-z]{20}$`));
    }
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 10000 }, () => newId('qr')));
    expect(ids.size).toBe(10000);
  });

  it('makes 7-character base62 short codes', () => {
    expect(newShortCode()).toMatch(/^[0-9A-Za-z]{7}$/);
  });

  it('uses every base62 character roughly evenly', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62_000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(700);
  });

  it('checks prefixes', () => {
    expect(hasPrefix(newId('fld'), 'fld')).toBe(true);
    expect(hasPrefix(newId('qr'), 'fld')).toBe(false);
    expect(hasPrefix('fld_short', 'fld')).toBe(false);
  });
});

describe('newShortCode', () => {
  it('never hands out a path the scan host answers itself: a draw spelling one is drawn again', () => {
    expect(RESERVED_SHORT_CODES.has('metrics')).toBe(true);
    // base62 indexes of m, e, t, r, i, c, s: the first draw spells "metrics"
    const metrics = Buffer.from([48, 40, 55, 53, 44, 38, 54, 0, 0, 0, 0, 0, 0, 0]);
    const draw = jest.mocked(randomBytes);
    draw.mockClear();
    draw.mockImplementationOnce(() => metrics);
    const code = newShortCode();
    expect(code).not.toBe('metrics');
    expect(code).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(draw).toHaveBeenCalledTimes(2);
  });
});
