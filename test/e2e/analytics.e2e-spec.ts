import Redis from 'ioredis';
import { SCAN_STREAM, SCAN_STREAM_GROUP, type ScanRecord } from '../../src/modules/scan/scan-contract';
import { ScanRetentionProcessor } from '../../src/modules/analytics/scan-retention';
import { newId } from '../../src/common/ids';
import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { createOrg, db, eventually, http, startApi, startWorker, TestApp, TestOrg } from '../setup/app';

const DAY_MS = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
const at = (offset: number, time = '12:00:00.000') => `${day(offset)}T${time}Z`;

/**
 * Ingestion is tested from the stream inward: the test writes ScanRecord batches to the Redis stream exactly as the
 * scan host does (one entry, field `b`), a real worker stores them, and the API reports them.
 */
describe('scan analytics', () => {
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let redis: Redis;
  let rx: TestReceiver;
  let org: TestOrg;

  beforeAll(async () => {
    rx = await new TestReceiver().start();
    t = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    // Workers of all test files share the Bull queues: this one may run delivery attempts of webhooks-delivery's
    // events, so it uses that file's delivery tunables rather than the production defaults (60 s retry delays).
    worker = await startWorker({
      WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_DELAYS: '150,150,150,150,150,150',
      WEBHOOK_AUTO_DISABLE_FAILURES: '10',
      WEBHOOK_AUTO_DISABLE_HOURS: '0',
    });
    redis = new Redis(t.config.redisUrl);
    // The worker creates the group as it starts; the dead-consumer test needs it before then.
    await redis.xgroup('CREATE', SCAN_STREAM, SCAN_STREAM_GROUP, '0', 'MKSTREAM').catch(() => undefined);
    org = await createOrg(t, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    redis.disconnect();
    await rx.stop();
  });

  const createCode = async (o: TestOrg = org, body: Record<string, unknown> = {}) => {
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'url', destination: 'https://example.com/' }, ...body } });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };

  const scan = (code: { id: string }, over: Partial<ScanRecord> = {}, o: TestOrg = org): ScanRecord => ({
    id: newId('scan'),
    qr_code_id: code.id,
    organization_id: o.organizationId,
    scanned_at: at(-1),
    country: 'GB',
    city: 'London',
    device: 'Mobile',
    os: 'iOS',
    browser: 'Mobile Safari',
    referrer: 'news.example.com',
    language: 'en',
    ...over,
  });

  /** Queues one stream entry, as a scan process flush does. */
  const queue = async (records: unknown[] | string): Promise<string> =>
    (await redis.xadd(SCAN_STREAM, '*', 'b', typeof records === 'string' ? records : JSON.stringify(records)))!;

  /** An entry is removed from the stream only after its transaction committed (XACK + XDEL). */
  const ingested = (...ids: string[]) =>
    eventually(async () => (await Promise.all(ids.map((id) => redis.xrange(SCAN_STREAM, id, id)))).every((r) => r.length === 0), 20_000, `ingestion of ${ids.join(', ')}`);

  const analytics = (id: string, query = '', o: TestOrg = org) => http(t.origin, 'GET', `/v1/qr-codes/${id}/analytics${query}`, { key: o.apiKey });

  describe('ingestion and GET /v1/qr-codes/{id}/analytics', () => {
    it('counts scans, zero-fills scans_by_day and filters by from/to (inclusive UTC days)', async () => {
      const code = await createCode();
      const fresh = await analytics(code.id);
      expect(fresh.body).toEqual({
        object: 'analytics',
        qr_code_id: code.id,
        total_scans: 0,
        first_scan_at: null,
        last_scan_at: null,
        unique_scans: 0,
        expired_scans: 0,
        timezone: 'UTC',
        interval: 'day',
        scans_by_day: [{ date: day(0), count: 0 }],
        scans_by_interval: [{ start: `${day(0)}T00:00:00+00:00`, scans: 0, unique_scans: 0 }],
        by_hour_of_week: new Array(168).fill(0),
        countries: [],
        cities: [],
        devices: [],
        operating_systems: [],
        browsers: [],
        referrers: [],
        languages: [],
        rules: [],
      });

      const records = [
        scan(code, { scanned_at: at(-3, '00:00:00.000'), country: 'DE' }),
        scan(code, { scanned_at: at(-3, '10:30:00.250'), country: 'DE' }),
        scan(code, { scanned_at: at(-3, '23:59:59.999'), country: 'FR' }),
        scan(code, { scanned_at: at(-1, '08:00:00.000') }),
        scan(code, { scanned_at: at(-1, '09:00:00.000') }),
        scan(code, { scanned_at: at(0, '00:00:00.001') }),
      ];
      await ingested(await queue(records));

      const retrieved = await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey });
      expect(retrieved.body.scan_count).toBe(6);

      // Unfiltered: totals cover all time; the series starts at the creation day (today).
      const all = await analytics(code.id);
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({
        total_scans: 6,
        first_scan_at: at(-3, '00:00:00.000'),
        last_scan_at: at(0, '00:00:00.001'),
        scans_by_day: [{ date: day(0), count: 1 }],
        countries: [
          { name: 'GB', count: 3 },
          { name: 'DE', count: 2 },
          { name: 'FR', count: 1 },
        ],
      });

      const window = await analytics(code.id, `?from=${day(-5)}&to=${day(0)}`);
      expect(window.body.total_scans).toBe(6);
      expect(window.body.scans_by_day).toEqual([
        { date: day(-5), count: 0 },
        { date: day(-4), count: 0 },
        { date: day(-3), count: 3 },
        { date: day(-2), count: 0 },
        { date: day(-1), count: 2 },
        { date: day(0), count: 1 },
      ]);

      const early = await analytics(code.id, `?from=${day(-3)}&to=${day(-2)}`);
      expect(early.body).toMatchObject({
        total_scans: 3,
        first_scan_at: at(-3, '00:00:00.000'),
        last_scan_at: at(-3, '23:59:59.999'),
        scans_by_day: [
          { date: day(-3), count: 3 },
          { date: day(-2), count: 0 },
        ],
        countries: [
          { name: 'DE', count: 2 },
          { name: 'FR', count: 1 },
        ],
        devices: [{ name: 'Mobile', count: 3 }],
      });

      // Only `from`: up to today. Only `to`: everything up to that day, series from the creation day (clamped to `to`).
      expect((await analytics(code.id, `?from=${day(-1)}`)).body).toMatchObject({ total_scans: 3, scans_by_day: [{ date: day(-1), count: 2 }, { date: day(0), count: 1 }] });
      expect((await analytics(code.id, `?to=${day(-1)}`)).body).toMatchObject({ total_scans: 5, scans_by_day: [{ date: day(-1), count: 2 }] });

      const empty = await analytics(code.id, `?from=${day(-10)}&to=${day(-8)}`);
      expect(empty.body).toMatchObject({ total_scans: 0, first_scan_at: null, last_scan_at: null, countries: [], languages: [] });
      expect(empty.body.scans_by_day).toHaveLength(3);
    });

    it('reports the top 10 values per dimension by count, then name, with Unknown for missing values', async () => {
      const code = await createCode();
      const countries: (string | null)[] = [
        ...Array<string>(5).fill('DE'),
        ...Array<string>(3).fill('FR'),
        ...Array<string>(3).fill('AT'),
        ...Array<string>(2).fill('BE'),
        null,
        null,
        ...['C0', 'C6', 'C1', 'C5', 'C2', 'C4', 'C3'],
      ];
      const records = countries.map((country, i) =>
        scan(code, { country, city: null, referrer: null, device: i % 2 ? 'Desktop' : 'Mobile', os: null, browser: 'Chrome', language: i < 4 ? 'de' : 'en' }),
      );
      await ingested(await queue(records));
      const res = await analytics(code.id);
      expect(res.body.total_scans).toBe(22);
      expect(res.body.countries).toEqual([
        { name: 'DE', count: 5 },
        { name: 'AT', count: 3 },
        { name: 'FR', count: 3 },
        { name: 'BE', count: 2 },
        { name: 'Unknown', count: 2 },
        { name: 'C0', count: 1 },
        { name: 'C1', count: 1 },
        { name: 'C2', count: 1 },
        { name: 'C3', count: 1 },
        { name: 'C4', count: 1 },
      ]);
      expect(res.body.cities).toEqual([{ name: 'Unknown', count: 22 }]);
      expect(res.body.referrers).toEqual([{ name: 'Unknown', count: 22 }]);
      expect(res.body.operating_systems).toEqual([{ name: 'Unknown', count: 22 }]);
      expect(res.body.devices).toEqual([
        { name: 'Desktop', count: 11 },
        { name: 'Mobile', count: 11 },
      ]);
      expect(res.body.browsers).toEqual([{ name: 'Chrome', count: 22 }]);
      expect(res.body.languages).toEqual([
        { name: 'en', count: 18 },
        { name: 'de', count: 4 },
      ]);
      // The same lists through the daily rollups (a filtered request) as through the all-time totals.
      const filtered = (await analytics(code.id, `?from=${day(-1)}`)).body;
      for (const list of ['countries', 'cities', 'devices', 'operating_systems', 'browsers', 'referrers', 'languages']) {
        expect(filtered[list]).toEqual(res.body[list]);
      }
    });

    it('stores a scan once however often it is queued', async () => {
      const code = await createCode();
      const once = scan(code);
      const ids = [await queue([once, once]), await queue([once]), await queue([scan(code, { scanned_at: at(-2) })])];
      // A redelivered entry (same content again) changes nothing either.
      ids.push(await queue([once]));
      await ingested(...ids);
      const res = await analytics(code.id);
      expect(res.body.total_scans).toBe(2);
      expect((await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).body.scan_count).toBe(2);
      const [row] = await db(t).execute<{ n: string }[]>('select count(*) as n from scans where qr_code_id = ?', [code.id]);
      expect(Number(row.n)).toBe(2);
      const [rollup] = await db(t).execute<{ n: string }[]>(`select sum(count) as n from scan_day_values where qr_code_id = ? and dimension = 'country'`, [code.id]);
      expect(Number(rollup.n)).toBe(2);
      const [totals] = await db(t).execute<{ n: string }[]>(`select sum(count) as n from scan_value_totals where qr_code_id = ? and dimension = 'country'`, [code.id]);
      expect(Number(totals.n)).toBe(2);
    });

    it('skips scans of purged or unknown codes and malformed records without holding back the others', async () => {
      const kept = await createCode();
      const purged = await createCode();
      expect((await http(t.origin, 'DELETE', `/v1/qr-codes/${purged.id}`, { key: org.apiKey })).status).toBe(200);
      await db(t).execute('delete from qr_codes where id = ?', [purged.id]);
      const ids = [
        await queue([scan(purged), scan({ id: 'qr_doesnotexist0000000000' }), scan(kept), { id: 'scan_broken', qr_code_id: kept.id }]),
        await queue('{not json'),
        await queue([scan(kept)]),
      ];
      await ingested(...ids);
      expect((await analytics(kept.id)).body.total_scans).toBe(2);
      const [row] = await db(t).execute<{ n: string }[]>('select count(*) as n from scans where qr_code_id in (?, ?)', [purged.id, 'qr_doesnotexist0000000000']);
      expect(Number(row.n)).toBe(0);
    });

    it('stores the entries of one read together, and one Postgres refuses does not hold back the others', async () => {
      const code = await createCode();
      const other = await createCode();
      // Added in one transaction, so the worker reads them together and stores them as one batch first.
      const added = (await redis
        .multi()
        .xadd(SCAN_STREAM, '*', 'b', JSON.stringify([scan(code), scan(other)]))
        .xadd(SCAN_STREAM, '*', 'b', JSON.stringify([scan(code, { city: 'Lon\u0000don' })]))
        .xadd(SCAN_STREAM, '*', 'b', JSON.stringify([scan(code), scan(code, { scanned_at: at(-3) })]))
        .exec()) as [null, string][];
      await ingested(...added.map(([, id]) => id));
      expect((await analytics(code.id)).body.total_scans).toBe(3);
      expect((await analytics(other.id)).body.total_scans).toBe(1);
      expect((await http(t.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).body.scan_count).toBe(3);
    });

    it('claims again the entries a dead consumer left pending', async () => {
      const code = await createCode();
      // A consumer takes the entry (atomically with its creation, so the live worker cannot get it first) and dies.
      const [[, id], [, read]] = (await redis
        .multi()
        .xadd(SCAN_STREAM, '*', 'b', JSON.stringify([scan(code), scan(code)]))
        .xreadgroup('GROUP', SCAN_STREAM_GROUP, 'dead-consumer', 'COUNT', 1000, 'STREAMS', SCAN_STREAM, '>')
        .exec()) as [[null, string], [null, [string, [string, string[]][]][]]];
      const taken = read[0][1].map(([entryId]) => entryId);
      expect(taken).toContain(id);
      // …long ago: pending for two minutes.
      await redis.xclaim(SCAN_STREAM, SCAN_STREAM_GROUP, 'dead-consumer', 0, ...taken, 'IDLE', 120_000);
      await ingested(id);
      expect((await analytics(code.id)).body.total_scans).toBe(2);
      const pending = (await redis.xpending(SCAN_STREAM, SCAN_STREAM_GROUP, '-', '+', 100, 'dead-consumer')) as unknown[];
      expect(pending).toEqual([]);
    });
  });

  describe('GET /v1/qr-codes/{id}/analytics refusals', () => {
    it('refuses bad dates, inverted and overlong ranges and unknown parameters with 400 naming the parameter', async () => {
      const code = await createCode();
      for (const [query, field, text] of [
        ['?from=2026-13-01', 'from', 'YYYY-MM-DD'],
        ['?from=2026-02-30', 'from', 'YYYY-MM-DD'],
        ['?to=yesterday', 'to', 'YYYY-MM-DD'],
        ['?from=2026-01-01&from=2026-01-02', 'from', 'YYYY-MM-DD'],
        [`?from=${day(-1)}&to=${day(-2)}`, 'from', 'must not be after'],
        [`?from=${day(1)}`, 'from', 'must not be after today'],
        [`?from=${day(-366)}&to=${day(0)}`, 'from', '367 days'],
        ['?since=2026-01-01', 'since', 'since'],
      ]) {
        const res = await analytics(code.id, query);
        expect([query, res.status, res.body.error?.code, res.body.error?.field]).toEqual([query, 400, 'invalid_request', field]);
        expect(res.body.error.message).toContain(text);
      }
      expect((await analytics(code.id, `?from=${day(-365)}&to=${day(0)}`)).body.scans_by_day).toHaveLength(366);
    });

    it('answers 422 for a static code and 404 for unknown ids and codes of other workspaces', async () => {
      const fixed = await createCode(org, { type: 'static' });
      const res = await analytics(fixed.id);
      expect([res.status, res.body.error.code]).toEqual([422, 'static_code_not_supported']);

      const mine = await createCode();
      const other = await createOrg(t, { plan: 'pro' });
      for (const id of [mine.id, 'qr_0000000000000000000000', 'not-an-id']) {
        const foreign = await analytics(id, '', other);
        expect([id, foreign.status, foreign.body.error.code]).toEqual([id, 404, 'not_found']);
      }
    });

    it('answers 403 on the free plan and without the analytics:read scope', async () => {
      const code = await createCode();
      const free = await createOrg(t, { plan: 'free' });
      const onFree = await analytics(code.id, '', free);
      expect([onFree.status, onFree.body.error.code]).toEqual([403, 'plan_restricted']);
      const reader = await createOrg(t, { plan: 'pro', scopes: ['qr:read'] });
      const noScope = await analytics(code.id, '', reader);
      expect([noScope.status, noScope.body.error.code]).toEqual([403, 'insufficient_scope']);
      expect(noScope.body.error.message).toContain('analytics:read');
    });
  });

  it('documents the route in the OpenAPI document: query parameters, the Analytics schema and every refusal', async () => {
    const doc = (await http(t.origin, 'GET', '/docs/openapi.json')).body;
    const op = doc.paths['/v1/qr-codes/{id}/analytics'].get;
    expect(op['x-required-scope']).toBe('analytics:read');
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual(
      ['path:id', 'query:browser', 'query:city', 'query:country', 'query:device', 'query:from', 'query:interval', 'query:language', 'query:os', 'query:referrer', 'query:timezone', 'query:to'],
    );
    expect(op.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/AnalyticsDto');
    for (const status of ['400', '401', '403', '404', '422', '429']) {
      expect([status, op.responses[status]?.content['application/json'].schema.$ref]).toEqual([status, '#/components/schemas/ErrorEnvelopeDto']);
    }
    expect(Object.keys(doc.components.schemas.AnalyticsDto.properties)).toEqual([
      'object', 'qr_code_id', 'total_scans', 'unique_scans', 'expired_scans', 'timezone', 'interval', 'first_scan_at', 'last_scan_at',
      'scans_by_day', 'scans_by_interval', 'by_hour_of_week',
      'countries', 'cities', 'devices', 'operating_systems', 'browsers', 'referrers', 'languages', 'rules',
    ]);
  });

  describe('qr.scanned', () => {
    it('archives one event per new scan with exactly the allowlisted fields when an endpoint subscribes', async () => {
      const subscribed = await createOrg(t, { plan: 'pro' });
      const hook = await http(t.origin, 'POST', '/v1/webhooks', { key: subscribed.apiKey, body: { url: rx.url('/hook'), events: ['qr.scanned'] } });
      expect(hook.status).toBe(201);
      const code = await createCode(subscribed);
      const first = scan(code, { scanned_at: at(-1, '07:00:00.000'), city: null }, subscribed);
      const second = scan(code, { scanned_at: at(-1, '07:05:00.000'), referrer: null }, subscribed);
      await ingested(await queue([first, second]), await queue([first]));
      const events = await http(t.origin, 'GET', '/v1/events?type=qr.scanned', { key: subscribed.apiKey });
      const data = events.body.data.map((e: { data: { scanned_at: string } }) => e.data);
      // Listed newest first by created_at; both may share a millisecond, so compare in scan order.
      data.sort((a: { scanned_at: string }, b: { scanned_at: string }) => a.scanned_at.localeCompare(b.scanned_at));
      expect(data).toEqual(
        [first, second].map((s) => ({
          qr_code_id: s.qr_code_id,
          scanned_at: s.scanned_at,
          country: s.country,
          city: s.city,
          device: s.device,
          os: s.os,
          browser: s.browser,
          referrer: s.referrer,
          language: s.language,
        })),
      );
      await eventually(async () => rx.requests.filter((r) => r.path === '/hook').length === 2, 20_000, 'two qr.scanned deliveries');
    });

    it('archives nothing when no enabled endpoint subscribes', async () => {
      const quiet = await createOrg(t, { plan: 'pro' });
      const other = await http(t.origin, 'POST', '/v1/webhooks', { key: quiet.apiKey, body: { url: rx.url('/other'), events: ['qr.updated'] } });
      expect(other.status).toBe(201);
      const code = await createCode(quiet);
      await ingested(await queue([scan(code, {}, quiet)]));
      expect((await analytics(code.id, '', quiet)).body.total_scans).toBe(1);
      const events = await http(t.origin, 'GET', '/v1/events?type=qr.scanned', { key: quiet.apiKey });
      expect(events.body.data).toEqual([]);
    });
  });

  describe('raw-scan retention', () => {
    it('deletes raw scans older than SCAN_RETENTION_DAYS and keeps the rollups', async () => {
      const code = await createCode();
      const old = scan(code, { scanned_at: at(-500) });
      const recent = scan(code, { scanned_at: at(-2) });
      await ingested(await queue([old, recent]));

      const result = await worker.app.get(ScanRetentionProcessor).purge();
      expect(result.deleted).toBeGreaterThanOrEqual(1);
      const rows = await db(t).execute<{ id: string }[]>('select id from scans where qr_code_id = ?', [code.id]);
      expect(rows.map((r) => r.id)).toEqual([recent.id]);

      expect((await analytics(code.id)).body.total_scans).toBe(2);
      const then = await analytics(code.id, `?from=${day(-501)}&to=${day(-499)}`);
      expect(then.body).toMatchObject({ total_scans: 1, first_scan_at: old.scanned_at, countries: [{ name: 'GB', count: 1 }] });
    });
  });
});
