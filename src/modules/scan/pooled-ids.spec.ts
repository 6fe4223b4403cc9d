import { ID_PATTERN } from '../../common/ids';
import { pooledId } from './pooled-ids';

describe('pooledId', () => {
  it('makes ids in newId format whose 20 characters are all random: no shared counter or per-process part', () => {
    const ids = Array.from({ length: 20_000 }, () => pooledId('req'));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(ID_PATTERN);
    expect(ids.every((id) => /^req_[0-9A-Za-z]{20}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // Each position takes about every base62 character (a fixed prefix or a counter would not).
    for (let p = 4; p < 24; p++) expect(new Set(ids.map((id) => id[p])).size).toBeGreaterThan(58);
    // Consecutive ids share about 20/62 characters by position, never a long run.
    const same = ids.slice(1).reduce((n, id, i) => n + [...id.slice(4)].filter((c, j) => c === ids[i][4 + j]).length, 0);
    expect(same / (ids.length - 1)).toBeLessThan(1);
  });

  it('keeps each prefix apart when ids of two prefixes are drawn in turn', () => {
    const req: string[] = [];
    const scan: string[] = [];
    for (let i = 0; i < 1_000; i++) {
      req.push(pooledId('req'));
      scan.push(pooledId('scan'));
    }
    expect(req.every((id) => /^req_[0-9A-Za-z]{20}$/.test(id))).toBe(true);
    expect(scan.every((id) => /^scan_[0-9A-Za-z]{20}$/.test(id))).toBe(true);
    expect(new Set([...req, ...scan].map((id) => id.slice(id.indexOf('_') + 1))).size).toBe(2_000);
  });
});
