import Redis from 'ioredis';
import { SCAN_STREAM, type ScanRecord } from '../../src/modules/scan/scan-contract';
import { newId } from '../../src/common/ids';
import { createOrg, db, eventually, http, startApi, startWorker, TestApp, TestOrg } from '../setup/app';

const DAY_MS = 86_400_000;

/**
 * Ingestion of batches spread over many codes and days (the worst case of docs/analytics.md), and what replaced the
 * raw scans' foreign key to qr_codes: deleting a code or a workspace still deletes its raw scans.
 */
describe('scan ingestion across many codes and days', () => {
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let redis: Redis;
  let org: TestOrg;

  beforeAll(async () => {
    t = await startApi();
    worker = await startWorker();
    redis = new Redis(t.config.redisUrl);
    org = await createOrg(t, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    redis.disconnect();
  });

  const createCode = async (o: TestOrg = org) => {
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'url', destination: 'https://example.com/' } } });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const scan = (code: { id: string }, daysAgo: number, i: number, o: TestOrg = org): ScanRecord => ({
    id: newId('scan'),
    qr_code_id: code.id,
    organization_id: o.organizationId,
    scanned_at: new Date(Date.now() - daysAgo * DAY_MS).toISOString(),
    country: ['GB', 'US', 'DE', null][i % 4],
    city: null,
    device: 'Mobile',
    os: ['iOS', 'Android'][i % 2],
    browser: 'Chrome',
    referrer: null,
    language: 'en',
  });
  const queue = async (records: ScanRecord[]): Promise<string> => (await redis.xadd(SCAN_STREAM, '*', 'b', JSON.stringify(records)))!;
  const ingested = (...ids: string[]) =>
    eventually(async () => (await Promise.all(ids.map((id) => redis.xrange(SCAN_STREAM, id, id)))).every((r) => r.length === 0), 20_000, `ingestion of ${ids.join(', ')}`);
  const count = async (sql: string, params: unknown[]) => Number((await db(t).execute<{ n: string | null }[]>(sql, params))[0].n ?? 0);

  it('counts every scan of an entry spread over many codes and days exactly once, also when the entry is queued again', async () => {
    const codes = await Promise.all(Array.from({ length: 6 }, () => createCode()));
    const records = Array.from({ length: 600 }, (_, i) => scan(codes[i % codes.length], i % 25, i));
    await ingested(await queue(records));
    // The same entry delivered again (a worker died before XACK) stores nothing twice.
    await ingested(await queue(records));
    for (const code of codes) {
      const res = await http(t.origin, 'GET', `/v1/qr-codes/${code.id}/analytics`, { key: org.apiKey });
      expect(res.status).toBe(200);
      expect(res.body.total_scans).toBe(100);
      expect((await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).body.scan_count).toBe(100);
      expect(await count('select count(*) as n from scans where qr_code_id = ?', [code.id])).toBe(100);
      expect(await count('select sum(count) as n from scan_days where qr_code_id = ?', [code.id])).toBe(100);
      expect(await count(`select sum(count) as n from scan_day_values where qr_code_id = ? and dimension = 'os'`, [code.id])).toBe(100);
      expect(await count(`select sum(count) as n from scan_value_totals where qr_code_id = ? and dimension = 'country'`, [code.id])).toBe(100);
    }
  });

  it('deletes the raw scans of a permanently deleted code and of a deleted workspace, and stores none for them later', async () => {
    const other = await createOrg(t, { plan: 'pro' });
    const [gone, kept, foreign] = [await createCode(), await createCode(), await createCode(other)];
    await ingested(await queue([scan(gone, 1, 0), scan(gone, 2, 1), scan(kept, 1, 2)]), await queue([scan(foreign, 3, 0, other)]));
    expect(await count('select count(*) as n from scans where qr_code_id in (?, ?, ?)', [gone.id, kept.id, foreign.id])).toBe(4);

    await db(t).execute('delete from qr_codes where id = ?', [gone.id]);
    await db(t).execute('delete from organizations where id = ?', [other.organizationId]);
    expect(await count('select count(*) as n from scans where qr_code_id in (?, ?)', [gone.id, foreign.id])).toBe(0);
    expect(await count('select count(*) as n from scans where organization_id = ?', [other.organizationId])).toBe(0);
    expect(await count('select count(*) as n from scans where qr_code_id = ?', [kept.id])).toBe(1);

    // Scans of those codes that arrive afterwards are dropped; the others of the same entry are stored.
    await ingested(await queue([scan(gone, 0, 0), scan(foreign, 0, 0, other), scan(kept, 0, 1)]));
    expect(await count('select count(*) as n from scans where qr_code_id in (?, ?)', [gone.id, foreign.id])).toBe(0);
    expect(await count('select count(*) as n from scans where qr_code_id = ?', [kept.id])).toBe(2);
  });
});
