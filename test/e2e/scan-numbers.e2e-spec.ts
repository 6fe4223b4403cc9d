import Redis from 'ioredis';
import type { CachedCode } from '../../src/modules/scan/scan-contract';
import { SCAN_NUMBER_KEY_PREFIX } from '../../src/common/redis/scan-number-key';
import { ScanNumbers } from '../../src/modules/scan/scan-numbers';
import { isolatedRedisUrl } from '../setup/app';

const code = (id: string, scanCount: number): CachedCode => ({ id, organizationId: 'org_1', shortCode: 'aB3dE9x', name: 'x', type: 'url', target: {}, status: 'live', isActive: true, scanCount });

/** Scan numbers of two scan processes (two ScanNumbers) shared through a real Redis. */
describe('scan numbers shared through Redis', () => {
  let redis: Redis;

  beforeAll(() => {
    redis = new Redis(isolatedRedisUrl(19), { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await redis.flushdb();
    redis.disconnect();
  });

  it("adds each process's scans to a shared total and reads the others' back", async () => {
    const a = new ScanNumbers();
    const b = new ScanNumbers();
    const stored = code('qr_shared', 5);
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
    expect(await redis.ttl(SCAN_NUMBER_KEY_PREFIX + 'qr_shared')).toBeGreaterThan(24 * 3600);

    // Redis unreachable: the scans are kept and added once it answers again.
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    down.on('error', () => undefined);
    await a.sync(down);
    expect(a.current(stored)).toBe(9);
    await a.sync(redis);
    await b.sync(redis);
    expect(b.current(stored)).toBe(9);
  });

  it('raises a shared total left behind while the number did not matter to the stored count', async () => {
    // The key of a code whose number stopped mattering (its limit removed) outlives it; its scans went on.
    await redis.set(SCAN_NUMBER_KEY_PREFIX + 'qr_stale', '3', 'EX', 3600);
    const numbers = new ScanNumbers();
    const stored = code('qr_stale', 40); // scans the database holds since
    expect(numbers.current(stored)).toBe(40);
    numbers.add(stored);
    await numbers.sync(redis);
    expect(await redis.get(SCAN_NUMBER_KEY_PREFIX + 'qr_stale')).toBe('41');
    numbers.add(stored);
    await numbers.sync(redis);
    expect(numbers.current(stored)).toBe(42);
    // A total ahead of the stored count (other processes' scans not yet stored) is kept.
    await redis.set(SCAN_NUMBER_KEY_PREFIX + 'qr_stale', '60', 'EX', 3600);
    numbers.add(stored);
    await numbers.sync(redis);
    expect(numbers.current(stored)).toBe(61);
  });
});
