import Redis from 'ioredis';
import { MikroORM } from '@mikro-orm/postgresql';
import { encodeScanBatch, SCAN_COMPACT_FIELD, SCAN_STREAM, type ScanRecord } from '../../src/modules/scan/scan-contract';
import { loadDaySalt, saltExpiry, VISITOR_SALT_PREFIX, VisitorSalts, visitorHash } from '../../src/modules/scan/visitor-salt';
import { ScanEncoder } from '../../src/modules/scan/scan-encoder';
import { parseScanEntry } from '../../src/modules/analytics/scan-entry';
import { pruneVisitors } from '../../src/modules/analytics/scan-retention';
import { newId } from '../../src/common/ids';
import { createOrg, db, eventually, http, startApi, startWorker, TestApp, TestOrg } from '../setup/app';

/**
 * Analytics, second edition: unique visitors, time zones and intervals, hour of week, expired scans, smart-URL rules,
 * dimension filters and workspace analytics. Scans go in through the stream as a scan process writes them (compact
 * entries), a real worker stores them, the API reports them.
 */
describe('analytics: uniques, time zones, filters, workspace', () => {
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

  const createCode = async (o: TestOrg = org, body: Record<string, unknown> = {}) => {
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'url', destination: 'https://example.com/' }, ...body } });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };

  const scan = (code: { id: string }, scannedAt: string, over: Partial<ScanRecord> = {}, o: TestOrg = org): ScanRecord => ({
    id: newId('scan'),
    qr_code_id: code.id,
    organization_id: o.organizationId,
    scanned_at: scannedAt,
    country: 'FR',
    city: 'Paris',
    device: 'Mobile',
    os: 'iOS',
    browser: 'Mobile Safari',
    referrer: null,
    language: 'fr',
    ...over,
  });

  /** One compact stream entry, exactly as a scan process flushes it; resolves once the worker stored it. */
  const ingest = async (records: ScanRecord[]) => {
    const id = (await redis.xadd(SCAN_STREAM, '*', SCAN_COMPACT_FIELD, encodeScanBatch(records)))!;
    await eventually(async () => (await redis.xrange(SCAN_STREAM, id, id)).length === 0, 20_000, `ingestion of ${id}`);
  };

  const get = (path: string, o: TestOrg = org) => http(t.origin, 'GET', path, { key: o.apiKey });
  const analytics = (id: string, query = '', o: TestOrg = org) => get(`/v1/qr-codes/${id}/analytics${query}`, o);

  describe('unique scans', () => {
    it('counts each visitor once per UTC day and code, never twice on redelivery, and stores no visitor value with the scan', async () => {
      const code = await createCode();
      const other = await createCode();
      const records = [
        scan(code, '2026-11-02T08:00:00.000Z', { visitor: 'visitorAAAAAAAAAAAAAAA' }),
        scan(code, '2026-11-02T09:00:00.000Z', { visitor: 'visitorAAAAAAAAAAAAAAA' }),
        scan(code, '2026-11-02T10:00:00.000Z', { visitor: 'visitorBBBBBBBBBBBBBBB' }),
        scan(code, '2026-11-02T11:00:00.000Z'), // no salt on the scan host: a visitor of its own
        scan(code, '2026-11-03T07:00:00.000Z', { visitor: 'visitorAAAAAAAAAAAAAAA' }), // another day
        scan(other, '2026-11-02T08:30:00.000Z', { visitor: 'visitorAAAAAAAAAAAAAAA' }), // another code
      ];
      await ingest(records.slice(0, 3));
      await ingest(records.slice(2)); // the third again (a redelivery), then the rest
      const res = await analytics(code.id, '?from=2026-11-01&to=2026-11-03');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total_scans: 5, unique_scans: 4, expired_scans: 0 });
      expect(res.body.scans_by_interval).toEqual([
        { start: '2026-11-01T00:00:00+00:00', scans: 0, unique_scans: 0 },
        { start: '2026-11-02T00:00:00+00:00', scans: 4, unique_scans: 3 },
        { start: '2026-11-03T00:00:00+00:00', scans: 1, unique_scans: 1 },
      ]);
      const hourly = await analytics(code.id, '?from=2026-11-02&to=2026-11-02&interval=hour');
      expect(hourly.body.scans_by_interval).toHaveLength(24);
      expect(hourly.body.scans_by_interval.slice(8, 12)).toEqual([
        { start: '2026-11-02T08:00:00+00:00', scans: 1, unique_scans: 1 },
        { start: '2026-11-02T09:00:00+00:00', scans: 1, unique_scans: 0 },
        { start: '2026-11-02T10:00:00+00:00', scans: 1, unique_scans: 1 },
        { start: '2026-11-02T11:00:00+00:00', scans: 1, unique_scans: 1 },
      ]);
      expect(hourly.body).not.toHaveProperty('scans_by_day');
      expect((await analytics(other.id, '?from=2026-11-02&to=2026-11-02')).body.unique_scans).toBe(1);

      const columns = await db(t).execute<{ column_name: string }[]>(`select column_name from information_schema.columns where table_name = 'scans'`);
      expect(columns.map((c) => c.column_name)).not.toContain('visitor');
      const stored = await db(t).execute<{ n: number }[]>(`select count(*)::int as n from scans where visit_unique and qr_code_id = ?`, [code.id]);
      expect(stored[0].n).toBe(4);

      // Visitors of days before yesterday are forgotten by the hourly retention job.
      const orm = t.app.get(MikroORM);
      await pruneVisitors(orm.em.fork() as never, new Date('2026-11-04T12:00:00Z'));
      const left = await db(t).execute<{ day: string }[]>(`select to_char(day, 'YYYY-MM-DD') as day from scan_visitors where qr_code_id = ?`, [code.id]);
      expect(left.map((r) => r.day)).toEqual(['2026-11-03']);
    });

    it("makes one salt per UTC day shared by every process, deleted 48 hours after the day began, never made again afterwards", async () => {
      const now = Date.now();
      const today = new Date(now).toISOString().slice(0, 10);
      await redis.del(VISITOR_SALT_PREFIX + today);
      const a = await loadDaySalt(redis, today);
      const b = await loadDaySalt(redis, today);
      expect(a).not.toBeNull();
      expect(a!.length).toBe(32);
      expect(b!.equals(a!)).toBe(true);
      const expiresAt = Number(await redis.call('PEXPIRETIME', VISITOR_SALT_PREFIX + today));
      expect(expiresAt).toBe(saltExpiry(today));
      expect(expiresAt).toBe(Date.parse(`${today}T00:00:00Z`) + 48 * 3_600_000);
      const ttl = await redis.pttl(VISITOR_SALT_PREFIX + today);
      expect(ttl).toBeGreaterThan(24 * 3_600_000 - 5_000);
      expect(ttl).toBeLessThanOrEqual(48 * 3_600_000);

      // A day whose 48 hours are over has no salt any more, and none is made.
      const old = new Date(now - 2 * 86_400_000).toISOString().slice(0, 10);
      expect(await loadDaySalt(redis, old)).toBeNull();
      expect(await redis.exists(VISITOR_SALT_PREFIX + old)).toBe(0);
      // Redis deletes it at that time: a salt made with a short expiry is gone once it passes.
      const soon = new Date(Date.now() - 48 * 3_600_000 + 300).toISOString();
      const soonDay = soon.slice(0, 10);
      if (saltExpiry(soonDay) > Date.now()) {
        await loadDaySalt(redis, soonDay);
        await new Promise((r) => setTimeout(r, Math.max(0, saltExpiry(soonDay) - Date.now()) + 200));
        expect(await redis.exists(VISITOR_SALT_PREFIX + soonDay)).toBe(0);
      }

      // The same person on the same code and day gives the same value; another code, address or day does not, and
      // the value does not contain the address.
      // The scan encoder (as the scan process runs it) with the salts VisitorSalts loaded.
      const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
      const encoder = new ScanEncoder();
      const salts = new VisitorSalts(redis, (loaded) => encoder.setSalts(loaded));
      await salts.refresh();
      const visitor = (atMs: number, codeId: string, ip: string, ua: string) => {
        const encoded = encoder.encode([atMs, codeId, 'org_1', ip, ua, undefined, undefined, null, null, undefined, null, false]);
        const record = parseScanEntry([SCAN_COMPACT_FIELD, encoded.entries[0][0]])!.records[0];
        return { visitor: record.visitor ?? null, saltMissing: encoded.saltMissing };
      };
      const v = visitor(now, 'qr_1', '203.0.113.9', IPHONE).visitor;
      expect(v).toBe(visitorHash(a!, 'qr_1', '203.0.113.9', IPHONE));
      expect(v).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(visitor(now, 'qr_2', '203.0.113.9', IPHONE).visitor).not.toBe(v);
      expect(visitor(now, 'qr_1', '203.0.113.10', IPHONE).visitor).not.toBe(v);
      expect(visitor(Date.parse(old + 'T12:00:00.000Z'), 'qr_1', '203.0.113.9', IPHONE)).toEqual({ visitor: null, saltMissing: true });
      expect(v).not.toContain('203.0.113.9');
    });
  });

  describe('time zones and intervals', () => {
    it('puts day boundaries in the time zone, with 25 hours on the autumn DST day and 23 on the spring one', async () => {
      const code = await createCode();
      await ingest([
        scan(code, '2026-10-24T21:59:59.000Z'), // Paris 23:59:59 on the 24th (+02:00)
        scan(code, '2026-10-24T22:30:00.000Z'), // Paris 00:30 on the 25th
        scan(code, '2026-10-25T00:30:00.000Z'), // Paris 02:30 (+02:00), before the clocks go back
        scan(code, '2026-10-25T01:30:00.000Z'), // Paris 02:30 again (+01:00)
        scan(code, '2026-10-25T22:59:00.000Z'), // Paris 23:59 on the 25th (+01:00)
        scan(code, '2026-10-26T08:15:00.000Z'), // Paris 09:15, Monday
      ]);
      const days = await analytics(code.id, '?from=2026-10-24&to=2026-10-26&timezone=Europe/Paris');
      expect(days.status).toBe(200);
      expect(days.body.timezone).toBe('Europe/Paris');
      expect(days.body.total_scans).toBe(6);
      expect(days.body.scans_by_day).toEqual([
        { date: '2026-10-24', count: 1 },
        { date: '2026-10-25', count: 4 },
        { date: '2026-10-26', count: 1 },
      ]);
      expect(days.body.scans_by_interval.map((p: { start: string }) => p.start)).toEqual([
        '2026-10-24T00:00:00+02:00',
        '2026-10-25T00:00:00+02:00',
        '2026-10-26T00:00:00+01:00',
      ]);
      // The same dates in UTC split differently.
      const utc = await analytics(code.id, '?from=2026-10-24&to=2026-10-26');
      expect(utc.body.scans_by_day.map((d: { count: number }) => d.count)).toEqual([2, 3, 1]);

      const hours = await analytics(code.id, '?from=2026-10-25&to=2026-10-25&timezone=Europe/Paris&interval=hour');
      expect(hours.body.scans_by_interval).toHaveLength(25);
      const starts = hours.body.scans_by_interval.map((p: { start: string }) => p.start);
      expect(starts.slice(0, 4)).toEqual(['2026-10-25T00:00:00+02:00', '2026-10-25T01:00:00+02:00', '2026-10-25T02:00:00+02:00', '2026-10-25T02:00:00+01:00']);
      expect(starts[24]).toBe('2026-10-25T23:00:00+01:00');
      const counts = hours.body.scans_by_interval.map((p: { scans: number }) => p.scans);
      expect([counts[0], counts[2], counts[3], counts[24]]).toEqual([1, 1, 1, 1]);
      expect(counts.reduce((a: number, b: number) => a + b, 0)).toBe(4);

      const spring = await analytics(code.id, '?from=2026-03-29&to=2026-03-29&timezone=Europe/Paris&interval=hour');
      expect(spring.body.scans_by_interval).toHaveLength(23);
      expect(spring.body.scans_by_interval[2].start).toBe('2026-03-29T03:00:00+02:00');
      // A zone whose clocks skip midnight: the day starts at its first instant, 01:00 at the new offset.
      const santiago = await analytics(code.id, '?from=2026-09-05&to=2026-09-07&timezone=america/santiago');
      expect(santiago.body.timezone).toBe('America/Santiago');
      expect(santiago.body.scans_by_interval.map((p: { start: string }) => p.start)).toEqual([
        '2026-09-05T00:00:00-04:00',
        '2026-09-06T01:00:00-03:00',
        '2026-09-07T00:00:00-03:00',
      ]);
      expect(santiago.body.scans_by_day.map((d: { date: string }) => d.date)).toEqual(['2026-09-05', '2026-09-06', '2026-09-07']);
      // The zone is named as it was sent, in its IANA spelling, not as ICU's older link (Asia/Calcutta).
      expect((await analytics(code.id, '?timezone=asia/kolkata')).body.timezone).toBe('Asia/Kolkata');

      // Hour of week in the zone: Monday 09:00 is index 9; Saturday 23:00 is (6 - 1) * 24 + 23.
      const week = await analytics(code.id, '?from=2026-10-19&to=2026-10-26&timezone=Europe/Paris');
      expect(week.body.by_hour_of_week).toHaveLength(168);
      expect(week.body.by_hour_of_week[9]).toBe(1);
      expect(week.body.by_hour_of_week[5 * 24 + 23]).toBe(1);
      expect(week.body.by_hour_of_week.reduce((a: number, b: number) => a + b, 0)).toBe(6);
    });

    it('breaks a DST-crossing range down by the local days of the zone, not by UTC days', async () => {
      const code = await createCode();
      await ingest([
        scan(code, '2026-10-23T21:30:00.000Z', { country: 'US', device: 'Desktop' }), // Paris 23:30 on the 23rd: before the range
        scan(code, '2026-10-23T22:30:00.000Z', { country: 'DE', language: 'de', rule_id: 'rule_a', arm: 0 }), // Paris 00:30 on the 24th (+02:00)
        scan(code, '2026-10-24T12:00:00.000Z', { country: 'FR' }),
        scan(code, '2026-10-25T01:30:00.000Z', { country: 'FR' }), // the repeated 02:30 (+01:00)
        scan(code, '2026-10-26T22:30:00.000Z', { country: 'GB', language: 'en' }), // Paris 23:30 on the 26th (+01:00)
        scan(code, '2026-10-26T23:30:00.000Z', { country: 'ES', device: 'Tablet' }), // Paris 00:30 on the 27th: after the range
        scan(code, '2026-10-26T22:45:00.000Z', { country: 'IT', expired: true }), // expired: never in a breakdown
      ]);
      const res = await analytics(code.id, '?from=2026-10-24&to=2026-10-26&timezone=Europe/Paris');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ total_scans: 4, expired_scans: 1 });
      expect(res.body.countries).toEqual([
        { name: 'FR', count: 2 },
        { name: 'DE', count: 1 },
        { name: 'GB', count: 1 },
      ]);
      expect(res.body.devices).toEqual([{ name: 'Mobile', count: 4 }]);
      expect(res.body.languages).toEqual([
        { name: 'fr', count: 2 },
        { name: 'de', count: 1 },
        { name: 'en', count: 1 },
      ]);
      expect(res.body.rules).toEqual([{ rule_id: 'rule_a', arm: 0, name: null, count: 1 }]);
      // Every list adds up to total_scans, as the series does.
      for (const list of ['countries', 'cities', 'devices', 'operating_systems', 'browsers', 'referrers', 'languages']) {
        expect(res.body[list].reduce((a: number, b: { count: number }) => a + b.count, 0)).toBe(4);
      }
      expect(res.body.scans_by_day).toEqual([
        { date: '2026-10-24', count: 2 },
        { date: '2026-10-25', count: 1 },
        { date: '2026-10-26', count: 1 },
      ]);

      // The same dates in UTC are other instants: the ES scan is in, the DE one (the 23rd in UTC) is out.
      const utc = await analytics(code.id, '?from=2026-10-24&to=2026-10-26');
      expect(utc.body.countries).toEqual([
        { name: 'FR', count: 2 },
        { name: 'ES', count: 1 },
        { name: 'GB', count: 1 },
      ]);

      // One local day of 23 hours west of UTC (New York, spring): it starts and ends inside UTC days.
      const ny = await createCode();
      await ingest([
        scan(ny, '2026-03-08T04:59:00.000Z', { country: 'CA' }), // New York 23:59 on the 7th (-05:00)
        scan(ny, '2026-03-08T05:00:00.000Z', { country: 'US' }), // 00:00 on the 8th
        scan(ny, '2026-03-09T03:59:00.000Z', { country: 'MX' }), // 23:59 on the 8th (-04:00)
        scan(ny, '2026-03-09T04:00:00.000Z', { country: 'BR' }), // 00:00 on the 9th
      ]);
      const spring = await analytics(ny.id, '?from=2026-03-08&to=2026-03-08&timezone=America/New_York');
      expect(spring.body.total_scans).toBe(2);
      expect(spring.body.countries).toEqual([
        { name: 'MX', count: 1 },
        { name: 'US', count: 1 },
      ]);
      const hours = await analytics(ny.id, '?from=2026-03-08&to=2026-03-08&timezone=America/New_York&interval=hour');
      expect(hours.body.scans_by_interval).toHaveLength(23);
      expect(hours.body.scans_by_interval[2].start).toBe('2026-03-08T03:00:00-04:00');
      expect(hours.body.countries).toEqual(spring.body.countries);
      // Hour of week in the zone: Sunday 00:00 and Sunday 23:00 (New York), whatever the UTC day.
      expect(spring.body.by_hour_of_week[6 * 24]).toBe(1);
      expect(spring.body.by_hour_of_week[6 * 24 + 23]).toBe(1);
      expect(spring.body.by_hour_of_week.reduce((a: number, b: number) => a + b, 0)).toBe(2);
      // A half-hour zone: the breakdowns still follow its local day (Kolkata, +05:30).
      const kolkata = await analytics(ny.id, '?from=2026-03-09&to=2026-03-09&timezone=Asia/Kolkata');
      expect(kolkata.body.countries).toEqual([
        { name: 'BR', count: 1 },
        { name: 'MX', count: 1 },
      ]);
    });

    it('starts weeks on Monday and months on the 1st, zero-filled', async () => {
      const code = await createCode();
      await ingest([scan(code, '2026-09-30T12:00:00.000Z'), scan(code, '2026-10-05T12:00:00.000Z'), scan(code, '2026-10-06T12:00:00.000Z')]);
      const weeks = await analytics(code.id, '?from=2026-09-30&to=2026-10-13&interval=week');
      expect(weeks.body.scans_by_interval).toEqual([
        { start: '2026-09-28T00:00:00+00:00', scans: 1, unique_scans: 1 },
        { start: '2026-10-05T00:00:00+00:00', scans: 2, unique_scans: 2 },
        { start: '2026-10-12T00:00:00+00:00', scans: 0, unique_scans: 0 },
      ]);
      const months = await analytics(code.id, '?from=2026-09-15&to=2026-11-15&interval=month&timezone=America/New_York');
      expect(months.body.scans_by_interval).toEqual([
        { start: '2026-09-01T00:00:00-04:00', scans: 1, unique_scans: 1 },
        { start: '2026-10-01T00:00:00-04:00', scans: 2, unique_scans: 2 },
        { start: '2026-11-01T00:00:00-04:00', scans: 0, unique_scans: 0 },
      ]);
    });
  });

  describe('expired scans, rules and filters', () => {
    it('counts expired scans apart, breaks scans down by rule and arm, and filters the whole answer by dimensions', async () => {
      const code = await createCode();
      await ingest([
        scan(code, '2026-11-10T10:00:00.000Z', { rule_id: 'rule_fr', arm: 0 }),
        scan(code, '2026-11-10T10:05:00.000Z', { rule_id: 'rule_fr', arm: 0 }),
        scan(code, '2026-11-10T10:10:00.000Z', { rule_id: 'rule_fr', arm: 1, device: 'Desktop', os: 'Windows' }),
        scan(code, '2026-11-10T10:15:00.000Z', { rule_id: null, country: 'DE', city: 'Berlin', language: 'de' }),
        scan(code, '2026-11-10T10:20:00.000Z', { country: null, city: null }),
        scan(code, '2026-11-10T10:25:00.000Z', { expired: true }),
      ]);
      const all = await analytics(code.id, '?from=2026-11-10&to=2026-11-10');
      expect(all.body).toMatchObject({ total_scans: 5, unique_scans: 5, expired_scans: 1 });
      expect(all.body.countries).toEqual([
        { name: 'FR', count: 3 },
        { name: 'DE', count: 1 },
        { name: 'Unknown', count: 1 },
      ]);
      expect(all.body.rules).toEqual([
        { rule_id: 'rule_fr', arm: 0, name: null, count: 2 },
        { rule_id: null, arm: null, name: null, count: 1 },
        { rule_id: 'rule_fr', arm: 1, name: null, count: 1 },
      ]);
      const allTime = await analytics(code.id);
      expect(allTime.body).toMatchObject({ total_scans: 5, expired_scans: 1 });
      expect(allTime.body.rules).toEqual(all.body.rules);
      expect((await get(`/v1/qr-codes/${code.id}`)).body.scan_count).toBe(5);

      const filtered = await analytics(code.id, '?from=2026-11-10&to=2026-11-10&country=fr&device=mobile');
      expect(filtered.status).toBe(200);
      expect(filtered.body).toMatchObject({ total_scans: 2, unique_scans: 2, expired_scans: 1, first_scan_at: '2026-11-10T10:00:00.000Z', last_scan_at: '2026-11-10T10:05:00.000Z' });
      expect(filtered.body.devices).toEqual([{ name: 'Mobile', count: 2 }]);
      expect(filtered.body.countries).toEqual([{ name: 'FR', count: 2 }]);
      expect(filtered.body.rules).toEqual([{ rule_id: 'rule_fr', arm: 0, name: null, count: 2 }]);
      expect(filtered.body.scans_by_day).toEqual([{ date: '2026-11-10', count: 2 }]);
      expect(filtered.body.by_hour_of_week.reduce((a: number, b: number) => a + b, 0)).toBe(2);
      const unknown = await analytics(code.id, '?from=2026-11-10&to=2026-11-10&country=Unknown');
      expect(unknown.body.total_scans).toBe(1);
    });

    it('lists every rule and arm that had scans, not a top 10 (a 10-arm split and the default: 11 rows)', async () => {
      const code = await createCode();
      // Arm k gets k + 2 scans, the default 1: eleven rows, the smallest of them last.
      const scans = Array.from({ length: 10 }, (_, arm) =>
        Array.from({ length: arm + 2 }, (__, n) => scan(code, `2026-11-11T10:${String(arm * 5 + (n % 5)).padStart(2, '0')}:0${n % 10}.000Z`, { rule_id: 'rule_ab', arm })),
      ).flat();
      await ingest([...scans, scan(code, '2026-11-11T11:00:00.000Z', { rule_id: null })]);
      const res = await analytics(code.id, '?from=2026-11-11&to=2026-11-11');
      expect(res.body.total_scans).toBe(scans.length + 1);
      expect(res.body.rules).toEqual([
        ...Array.from({ length: 10 }, (_, i) => ({ rule_id: 'rule_ab', arm: 9 - i, name: null, count: 11 - i })),
        { rule_id: null, arm: null, name: null, count: 1 },
      ]);
    });

    it('refuses unknown filters, time zones, intervals and too fine series with 400 naming the parameter', async () => {
      const code = await createCode();
      for (const [query, field] of [
        ['?colour=red', 'colour'],
        ['?timezone=Mars/Olympus_Mons', 'timezone'],
        ['?timezone=', 'timezone'],
        ['?interval=minute', 'interval'],
        ['?from=2026-01-01&to=2026-12-31&interval=hour', 'interval'],
        ['?from=2026-10-01&to=2026-11-01&interval=hour', 'interval'],
        ['?country=FR&country=DE', 'country'],
        ['?from=2026-11-10&to=2026-11-01&timezone=Europe/Paris', 'from'],
        // The ends of the calendar: no range may reach a year of five digits or year 0 in any zone.
        ['?from=9998-12-31&to=9999-12-31', 'to'],
        ['?from=0001-01-01&to=0001-01-01&timezone=Asia/Tokyo', 'from'],
      ]) {
        const res = await analytics(code.id, query);
        expect([query, res.status, res.body.error?.code, res.body.error?.field]).toEqual([query, 400, 'invalid_request', field]);
      }
      // Hours for ranges up to 31 days (32 days, above, are refused).
      expect((await analytics(code.id, '?from=2026-10-01&to=2026-10-31&interval=hour')).body.scans_by_interval).toHaveLength(31 * 24);
    });
  });

  describe('GET /v1/analytics', () => {
    it('sums a selection of codes with a qr_codes breakdown, and answers 404 for foreign codes, folders and tags', async () => {
      const ws = await createOrg(t, { plan: 'pro' });
      const folder = await http(t.origin, 'POST', '/v1/folders', { key: ws.apiKey, body: { name: 'Campaign' } });
      expect(folder.status).toBe(201);
      const a = await createCode(ws, { name: 'Poster A', folder_id: folder.body.id, tags: ['spring'] });
      const b = await createCode(ws, { name: 'Poster B', tags: ['spring'] });
      const c = await createCode(ws, { name: 'Flyer' });
      await ingest([
        scan(a, '2026-11-12T10:00:00.000Z', {}, ws),
        scan(b, '2026-11-12T11:00:00.000Z', {}, ws),
        scan(b, '2026-11-12T12:00:00.000Z', { country: 'DE' }, ws),
        scan(c, '2026-11-12T13:00:00.000Z', {}, ws),
      ]);
      const q = '?from=2026-11-12&to=2026-11-12';
      const all = await get(`/v1/analytics${q}`, ws);
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ object: 'analytics', qr_code_id: null, total_scans: 4 });
      expect(all.body.qr_codes).toEqual([
        { id: b.id, name: 'Poster B', count: 2 },
        ...[
          { id: a.id, name: 'Poster A', count: 1 },
          { id: c.id, name: 'Flyer', count: 1 },
        ].sort((x, y) => (x.id < y.id ? -1 : 1)),
      ]);
      expect((await get(`/v1/analytics${q}&folder_id=${folder.body.id}`, ws)).body.total_scans).toBe(1);
      expect((await get(`/v1/analytics${q}&tag=spring`, ws)).body.total_scans).toBe(3);
      expect((await get(`/v1/analytics${q}&tag=spring&country=DE`, ws)).body.qr_codes).toEqual([{ id: b.id, name: 'Poster B', count: 1 }]);
      expect((await get(`/v1/analytics${q}&qr_code_id=${a.id}&qr_code_id=${c.id}`, ws)).body.total_scans).toBe(2);
      expect((await get(`/v1/analytics${q}&qr_code_id[]=${a.id}&qr_code_id[]=${b.id}`, ws)).body.total_scans).toBe(3);
      expect((await get(`/v1/analytics${q}&type=url`, ws)).body.total_scans).toBe(4);

      const foreign = await createCode(org);
      for (const query of [`qr_code_id=${foreign.id}`, `qr_code_id=${a.id}&qr_code_id=${foreign.id}`, 'folder_id=fld_0000000000000000', 'tag=autumn']) {
        const res = await get(`/v1/analytics?${query}`, ws);
        expect([query, res.status, res.body.error?.code]).toEqual([query, 404, 'not_found']);
      }
      const many = Array.from({ length: 101 }, (_, i) => `qr_code_id=qr_${String(i).padStart(20, '0')}`).join('&');
      const tooMany = await get(`/v1/analytics?${many}`, ws);
      expect([tooMany.status, tooMany.body.error?.field]).toEqual([400, 'qr_code_id']);
      const bad = await get('/v1/analytics?qr_code_id=nope', ws);
      expect([bad.status, bad.body.error?.field]).toEqual([400, 'qr_code_id']);
      for (const query of ['type=bogus', 'type=__proto__', 'to=9999-12-31', 'from=9998-12-01&to=9999-12-31']) {
        const res = await get(`/v1/analytics?${query}`, ws);
        expect([query, res.status, res.body.error?.code, res.body.error?.field]).toEqual([query, 400, 'invalid_request', query.slice(query.lastIndexOf('&') + 1).split('=')[0]]);
      }
      const free = await createOrg(t, { plan: 'free' });
      const onFree = await get('/v1/analytics', free);
      expect([onFree.status, onFree.body.error?.code]).toEqual([403, 'plan_restricted']);
    });
  });

  describe('GET /v1/scans', () => {
    it('lists raw scans newest first with a cursor, and streams every scan as CSV or NDJSON, oldest first', async () => {
      const ws = await createOrg(t, { plan: 'pro' });
      const a = await createCode(ws, { name: 'A' });
      const b = await createCode(ws, { name: 'B' });
      const records = [
        scan(a, '2026-11-14T10:00:00.000Z', { visitor: 'visitorAAAAAAAAAAAAAAA', rule_id: 'rule_x', arm: 1 }, ws),
        scan(a, '2026-11-14T10:01:00.000Z', { visitor: 'visitorAAAAAAAAAAAAAAA', city: 'Saint-Denis, "Nord"' }, ws),
        scan(b, '2026-11-14T10:02:00.000Z', { rule_id: null }, ws),
        scan(b, '2026-11-15T10:03:00.000Z', { expired: true, city: '=cmd()' }, ws),
      ];
      await ingest(records);
      const first = await get('/v1/scans?limit=3', ws);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ object: 'list', has_more: true });
      expect(first.body.data.map((r: { id: string }) => r.id)).toEqual([records[3].id, records[2].id, records[1].id]);
      expect(first.body.data[0]).toEqual({
        id: records[3].id,
        object: 'scan',
        qr_code_id: b.id,
        scanned_at: '2026-11-15T10:03:00.000Z',
        country: 'FR',
        city: '=cmd()',
        device: 'Mobile',
        os: 'iOS',
        browser: 'Mobile Safari',
        referrer: null,
        language: 'fr',
        rule_id: null,
        arm: null,
        unique: false,
        expired: true,
      });
      const second = await get(`/v1/scans?limit=3&cursor=${encodeURIComponent(first.body.next_cursor)}`, ws);
      expect(second.body.data.map((r: { id: string }) => r.id)).toEqual([records[0].id]);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(second.body.data[0]).toMatchObject({ rule_id: 'rule_x', arm: 1, unique: true, expired: false });

      const one = await get(`/v1/scans?qr_code_id=${a.id}&from=2026-11-14&to=2026-11-14`, ws);
      expect(one.body.data.map((r: { unique: boolean }) => r.unique)).toEqual([false, true]);
      expect((await get('/v1/scans?to=2026-11-14&timezone=Pacific/Kiritimati', ws)).body.data).toHaveLength(0);

      const csv = await get('/v1/scans?format=csv', ws);
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toContain('text/csv');
      const lines = csv.text.split('\r\n');
      expect(lines[0]).toBe('id,qr_code_id,scanned_at,country,city,device,os,browser,referrer,language,rule_id,arm,unique,expired');
      expect(lines).toHaveLength(6); // header, four scans, the empty string after the last line break
      expect(lines[1]).toBe(`${records[0].id},${a.id},2026-11-14T10:00:00.000Z,FR,Paris,Mobile,iOS,Mobile Safari,,fr,rule_x,1,true,false`);
      expect(lines[2]).toContain(',"Saint-Denis, ""Nord""",');
      expect(lines[4]).toContain(",'=cmd(),");

      const nd = await get(`/v1/scans?format=ndjson&qr_code_id=${b.id}`, ws);
      expect(nd.headers.get('content-type')).toContain('application/x-ndjson');
      const rows = nd.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string });
      expect(rows.map((r) => r.id)).toEqual([records[2].id, records[3].id]);
      expect(nd.text).not.toContain('visitor');

      const foreign = await createCode(org);
      for (const [query, status, field] of [
        ['?format=xml', 400, 'format'],
        ['?cursor=nope', 400, 'cursor'],
        ['?limit=0', 400, 'limit'],
        ['?format=csv&limit=5', 400, 'limit'],
        ['?country=', 400, 'country'],
        ['?colour=red', 400, 'colour'],
        ['?interval=day', 400, 'interval'],
        ['?type=bogus', 400, 'type'],
        ['?to=9999-12-31', 400, 'to'],
        // Only `to`, over 366 days after the oldest code's creation: refused as GET /v1/analytics refuses it.
        ['?to=9998-12-31&format=ndjson', 400, 'to'],
        ['?from=9999-12-31&format=csv', 400, 'from'],
        [`?qr_code_id=${foreign.id}`, 404, undefined],
      ] as const) {
        const res = await get(`/v1/scans${query}`, ws);
        expect([query, res.status, res.body.error?.field]).toEqual([query, status, field]);
      }
      const other = await get(`/v1/scans?cursor=${encodeURIComponent(first.body.next_cursor)}&qr_code_id=${a.id}&limit=3`, ws);
      expect([other.status, other.body.error?.field]).toEqual([400, 'cursor']);
    });

    it('keeps only the scans with the given dimension values, as GET /v1/analytics counts them, in the list and both exports', async () => {
      const ws = await createOrg(t, { plan: 'pro' });
      const a = await createCode(ws, { name: 'A' });
      const b = await createCode(ws, { name: 'B' });
      const records = [
        scan(a, '2026-11-14T10:00:00.000Z', { country: 'FR', device: 'Mobile' }, ws),
        scan(a, '2026-11-14T10:01:00.000Z', { country: 'DE', device: 'Mobile' }, ws),
        scan(b, '2026-11-14T10:02:00.000Z', { country: 'FR', device: 'Desktop' }, ws),
        scan(b, '2026-11-14T10:03:00.000Z', { country: 'FR', device: null }, ws),
      ];
      await ingest(records);
      const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
      const csvIds = (text: string) =>
        text
          .trim()
          .split('\r\n')
          .slice(1)
          .map((l) => l.split(',')[0]);
      // Case-insensitive, combined with AND and with the code selection; `Unknown` is a value not determined.
      expect(ids((await get('/v1/scans?country=fr', ws)).body.data)).toEqual([records[3].id, records[2].id, records[0].id]);
      expect(ids((await get('/v1/scans?country=FR&device=mobile', ws)).body.data)).toEqual([records[0].id]);
      expect(ids((await get(`/v1/scans?country=FR&qr_code_id=${b.id}`, ws)).body.data)).toEqual([records[3].id, records[2].id]);
      expect(ids((await get('/v1/scans?device=Unknown', ws)).body.data)).toEqual([records[3].id]);
      expect((await get('/v1/scans?country=JP', ws)).body.data).toEqual([]);
      const csv = await get('/v1/scans?format=csv&country=FR&from=2026-11-14&to=2026-11-14&timezone=Europe/Paris', ws);
      expect(csv.status).toBe(200);
      expect(csvIds(csv.text)).toEqual([records[0].id, records[2].id, records[3].id]);
      const nd = await get('/v1/scans?format=ndjson&device=desktop', ws);
      expect(nd.text.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([records[2].id]);
      // The same selection counted by GET /v1/analytics.
      const counted = await get('/v1/analytics?country=FR&device=mobile&from=2026-11-14&to=2026-11-14', ws);
      expect(counted.body.total_scans).toBe(1);
      // A cursor is bound to its filters.
      const page = await get('/v1/scans?country=FR&limit=1', ws);
      expect(ids((await get(`/v1/scans?country=FR&limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, ws)).body.data)).toEqual([records[2].id]);
      const moved = await get(`/v1/scans?country=DE&limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, ws);
      expect([moved.status, moved.body.error?.field]).toEqual([400, 'cursor']);
    });
  });

  describe('GET /v1/scans/live', () => {
    /** Reads an SSE response until `until` matches what arrived (or the time runs out). */
    const readUntil = async (res: Response, until: (text: string) => boolean, ms = 8_000): Promise<string> => {
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const deadline = Date.now() + ms;
      while (!until(text) && Date.now() < deadline) {
        const chunk = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), Math.max(1, deadline - Date.now())))]);
        if (!chunk || chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      reader.releaseLock();
      return text;
    };
    const events = (text: string) =>
      text
        .split('\n\n')
        .filter((b) => b.includes('event: scan'))
        .map((b) => ({ id: /^id: (.+)$/m.exec(b)![1], data: JSON.parse(/^data: (.+)$/m.exec(b)![1]) as { id: string; qr_code_id: string; unique: boolean } }));

    it('streams stored scans of the workspace or one code within 2 s, resumes from Last-Event-ID, and allows 5 feeds per key', async () => {
      const ws = await createOrg(t, { plan: 'pro' });
      const a = await createCode(ws);
      const b = await createCode(ws);
      const open = (query = '', headers: Record<string, string> = {}, controller = new AbortController()) =>
        fetch(`${t.origin}/v1/scans/live${query}`, { headers: { authorization: `Bearer ${ws.apiKey}`, ...headers }, signal: controller.signal });

      const all = new AbortController();
      const onlyB = new AbortController();
      const feed = await open('', {}, all);
      expect(feed.status).toBe(200);
      expect(feed.headers.get('content-type')).toContain('text/event-stream');
      const feedB = await open(`?qr_code_id=${b.id}`, {}, onlyB);
      await new Promise((r) => setTimeout(r, 1_200)); // the hub's reader is in place and the worker has seen a feed open
      const other = scan(await createCode(org), new Date().toISOString());
      // The same millisecond for both, so the order is by id (two clock reads could fall either side of a tick).
      const at = new Date().toISOString();
      const first = [scan(a, at, {}, ws), scan(b, at, {}, ws)];
      const started = Date.now();
      await ingest([...first, other]);
      const text = await readUntil(feed, (s) => events(s).length >= 2);
      expect(Date.now() - started).toBeLessThan(4_000);
      const got = events(text);
      // Oldest first; scans of the same millisecond by id.
      expect(got.map((e) => e.data.id)).toEqual(first.map((r) => r.id).sort());
      expect(got.find((e) => e.data.id === first[0].id)!.data).toMatchObject({ object: 'scan', qr_code_id: a.id, unique: true, expired: false });
      expect(text).not.toContain('organization_id');
      const textB = await readUntil(feedB, (s) => events(s).length >= 1);
      expect(events(textB).map((e) => e.data.id)).toEqual([first[1].id]);

      // Resume: a feed opened with the first event's id gets the second one from the stream, then live ones.
      const resumed = new AbortController();
      const again = await open('', { 'last-event-id': got[0].id }, resumed);
      const later = scan(a, new Date().toISOString(), {}, ws);
      await ingest([later]);
      const resumedText = await readUntil(again, (s) => events(s).length >= 2);
      expect(events(resumedText).map((e) => e.data.id)).toEqual([got[1].data.id, later.id]);

      // Three feeds open: two more are allowed, the sixth is refused.
      const more = [new AbortController(), new AbortController()];
      for (const c of more) expect((await open('', {}, c)).status).toBe(200);
      const sixth = await open();
      expect(sixth.status).toBe(429);
      expect(((await sixth.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      for (const c of [all, onlyB, resumed, ...more]) c.abort();
      // Closed feeds are released.
      await eventually(async () => {
        const res = await open();
        if (res.status !== 200) return false;
        res.body?.cancel().catch(() => undefined);
        return true;
      }, 5_000, 'a feed slot after closing');

      const foreign = await get(`/v1/scans/live?qr_code_id=${other.qr_code_id}`, ws);
      expect(foreign.status).toBe(404);
      const bad = await get('/v1/scans/live?country=FR', ws);
      expect([bad.status, bad.body.error?.field]).toEqual([400, 'country']);
    });

    it('answers HEAD at once with the feed headers, without taking a feed slot', async () => {
      const ws = await createOrg(t, { plan: 'pro' });
      const head = () => fetch(`${t.origin}/v1/scans/live`, { method: 'HEAD', headers: { authorization: `Bearer ${ws.apiKey}` }, signal: AbortSignal.timeout(5_000) });
      for (let i = 0; i < 6; i++) {
        const res = await head();
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('text/event-stream');
      }
      // Six probes later every slot is still free: five feeds open.
      const feeds = await Promise.all(Array.from({ length: 5 }, () => fetch(`${t.origin}/v1/scans/live`, { headers: { authorization: `Bearer ${ws.apiKey}` }, signal: AbortSignal.timeout(5_000) })));
      expect(feeds.map((f) => f.status)).toEqual([200, 200, 200, 200, 200]);
      for (const f of feeds) await f.body?.cancel().catch(() => undefined);
    });
  });
});
