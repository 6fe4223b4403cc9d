import Redis from 'ioredis';
import type { CachedCode } from './scan-contract';
import { ScanNumbers } from './scan-numbers';

const code = (scanCount: number): CachedCode => ({ id: 'qr_1', organizationId: 'org_1', shortCode: 'aB3dE9x', name: 'x', type: 'url', target: {}, status: 'live', isActive: true, scanCount });

describe('scan numbers', () => {
  it('counts on from the stored count, and never goes back when a refill reads a lagging count', () => {
    const numbers = new ScanNumbers();
    expect(numbers.current(code(10))).toBe(10);
    numbers.add(code(10));
    numbers.add(code(10));
    expect(numbers.current(code(10))).toBe(12);
    // The cache refilled while two scans were still on their way to the database: the count stays 12.
    expect(numbers.current(code(11))).toBe(12);
    // Another process's scans reached the database: the stored count leads.
    expect(numbers.current(code(20))).toBe(20);
    numbers.add(code(20));
    expect(numbers.current(code(20))).toBe(21);
  });

  it("adds each process's scans to a shared total and reads the others' back", async () => {
    // Two processes' counters over a Redis double: SET NX, INCRBY, EXPIRE of one key.
    const store = new Map<string, number>();
    const redis = {
      pipeline() {
        const calls: [string, string, string][] = [];
        const p = {
          eval(_script: string, _n: number, key: string, seed: string, add: string) {
            calls.push([key, seed, add]);
            return p;
          },
          exec: async () =>
            calls.map(([key, seed, add]) => {
              if (!store.has(key)) store.set(key, Number(seed));
              store.set(key, store.get(key)! + Number(add));
              return [null, store.get(key)] as [null, number];
            }),
        };
        return p;
      },
    } as unknown as Redis;
    const a = new ScanNumbers();
    const b = new ScanNumbers();
    const stored = code(5);
    expect(a.current(stored)).toBe(5);
    expect(b.current(stored)).toBe(5);
    a.add(stored);
    a.add(stored);
    b.add(stored);
    await a.sync(redis);
    await b.sync(redis);
    expect(b.current(stored)).toBe(8);
    await a.sync(redis);
    expect(a.current(stored)).toBe(8);
    a.add(stored);
    expect(a.current(stored)).toBe(9);
    // Redis unreachable: the scans are kept and added later.
    const down = { pipeline: () => ({ eval() { return this; }, exec: async () => { throw new Error('down'); } }) } as unknown as Redis;
    await a.sync(down);
    expect(a.current(stored)).toBe(9);
    await a.sync(redis);
    await b.sync(redis);
    expect(b.current(stored)).toBe(9);
  });
});

