import Redis from 'ioredis';
import { encodeScanBatch, SCAN_COMPACT_FIELD, SCAN_STREAM, type ScanRecord } from '../../src/modules/scan/scan-contract';
import { newId } from '../../src/common/ids';
import { createOrg, db, eventually, http, startApi, startWorker, TestApp, TestOrg } from '../setup/app';

/**
 * Workspace analytics over the whole workspace read the workspace rollups (scan_org_*); a list of ids reads the
 * per-code rollups. Both must give the same answer on the same data, which must also be the sum of the codes' own
 * answers: uniques, expired scans, a DST zone, a half-hour zone, hourly and weekly series, filters, a trashed code
 * (left out) and a code deleted for good (taken back out of the workspace rollups).
 */
describe('analytics: workspace rollups answer as the per-code rollups do', () => {
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let redis: Redis;
  let ws: TestOrg;

  beforeAll(async () => {
    t = await startApi();
    worker = await startWorker();
    redis = new Redis(t.config.redisUrl);
    ws = await createOrg(t, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    redis.disconnect();
  });

  const call = (method: string, path: string) => http(t.origin, method, path, { key: ws.apiKey });
  const createCode = async (name: string) => {
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: ws.apiKey, body: { name, target: { type: 'url', destination: 'https://example.com/' } } });
    expect(res.status).toBe(201);
    return res.body as { id: string };
  };
  const ingest = async (records: ScanRecord[]) => {
    const id = (await redis.xadd(SCAN_STREAM, '*', SCAN_COMPACT_FIELD, encodeScanBatch(records)))!;
    await eventually(async () => (await redis.xrange(SCAN_STREAM, id, id)).length === 0, 20_000, `ingestion of ${id}`);
  };

  /** Deterministic scans of `code`: hours around the Paris DST change (2026-10-25) and a November day, repeated
   * visitors, a few expired scans, varied dimensions and rules. */
  const scansOf = (code: { id: string }, seed: number, n: number): ScanRecord[] =>
    Array.from({ length: n }, (_, i) => {
      const k = i * 7 + seed * 13;
      const at = new Date(Date.parse('2026-10-23T18:00:00.000Z') + ((k * 2_713_000) % (4 * 86_400_000)));
      if (i % 5 === 4) at.setUTCDate(at.getUTCDate() + 20); // some in November
      return {
        id: newId('scan'),
        qr_code_id: code.id,
        organization_id: ws.organizationId,
        scanned_at: at.toISOString(),
        country: ['FR', 'DE', 'US', null][k % 4],
        city: ['Paris', 'Berlin', null][k % 3],
        device: ['Mobile', 'Desktop'][k % 2],
        os: ['iOS', 'Android', 'Windows'][k % 3],
        browser: 'Chrome',
        referrer: k % 3 === 0 ? 'news.example.com' : null,
        language: ['fr', 'de', 'en'][k % 3],
        visitor: `visitor${String(k % 6).padStart(15, 'A')}`,
        ...(i % 7 === 3 ? { expired: true } : {}),
        ...(k % 4 === 1 ? { rule_id: 'rule_fr', arm: k % 2 } : {}),
      } as ScanRecord;
    });

  const QUERIES = [
    '',
    '?timezone=Europe/Paris',
    '?from=2026-10-24&to=2026-10-27',
    '?from=2026-10-24&to=2026-10-27&timezone=Europe/Paris',
    '?from=2026-10-24&to=2026-10-27&timezone=Europe/Paris&interval=hour',
    '?from=2026-10-25&to=2026-10-25&timezone=America/New_York&interval=hour',
    '?from=2026-10-01&to=2026-11-30&timezone=America/New_York&interval=week',
    '?from=2026-10-24&to=2026-11-15&timezone=Asia/Kolkata',
    '?to=2026-11-20&timezone=Europe/Paris&interval=month',
    '?from=2026-10-24&to=2026-10-27&timezone=Europe/Paris&country=FR',
    '?from=2026-10-24&to=2026-11-20&device=desktop&language=de',
  ];

  it('gives the answer of the per-code rollups and the sum of the codes, after a code is trashed and another deleted', async () => {
    const codes = [await createCode('A'), await createCode('B'), await createCode('C')];
    const trashed = await createCode('Trashed');
    const deleted = await createCode('Deleted');
    const records = [...codes.flatMap((c, i) => scansOf(c, i, 120)), ...scansOf(trashed, 7, 60), ...scansOf(deleted, 9, 60)];
    for (let i = 0; i < records.length; i += 100) await ingest(records.slice(i, i + 100));
    await ingest(records.slice(0, 50)); // a redelivery counts nothing twice

    expect((await call('DELETE', `/v1/qr-codes/${trashed.id}`)).status).toBe(200);
    expect((await call('DELETE', `/v1/qr-codes/${deleted.id}`)).status).toBe(200);
    expect((await call('DELETE', `/v1/trash/${deleted.id}`)).status).toBe(200);

    const listed = codes.map((c) => `qr_code_id=${c.id}`).join('&');
    for (const q of QUERIES) {
      const whole = await call('GET', `/v1/analytics${q}`);
      const byIds = await call('GET', `/v1/analytics${q}${q ? '&' : '?'}${listed}`);
      expect([q, whole.status]).toEqual([q, 200]);
      expect([q, whole.body]).toEqual([q, byIds.body]);

      const each = await Promise.all(codes.map((c) => call('GET', `/v1/qr-codes/${c.id}/analytics${q}`)));
      const sum = (f: (b: Record<string, unknown>) => number) => each.reduce((n, r) => n + f(r.body), 0);
      const body = whole.body as { total_scans: number; unique_scans: number; expired_scans: number; scans_by_interval: { start: string; scans: number; unique_scans: number }[] };
      expect([q, body.total_scans, body.unique_scans, body.expired_scans]).toEqual([
        q,
        sum((b) => b.total_scans as number),
        sum((b) => b.unique_scans as number),
        sum((b) => b.expired_scans as number),
      ]);
      const series = (each[0].body.scans_by_interval as { start: string }[]).map((p, i) => ({
        start: p.start,
        scans: sum((b) => (b.scans_by_interval as { scans: number }[])[i].scans),
        unique_scans: sum((b) => (b.scans_by_interval as { unique_scans: number }[])[i].unique_scans),
      }));
      expect([q, body.scans_by_interval]).toEqual([q, series]);
    }

    // A folder, tag or type selecting most of the workspace reads the workspace rollups minus the other codes (here
    // the trashed one): the same answer as the per-code rollups of its codes.
    const made = await http(t.origin, 'POST', '/v1/folders', { key: ws.apiKey, body: { name: 'Campaign' } });
    expect(made.status).toBe(201);
    for (const c of codes) {
      const filed = await http(t.origin, 'PATCH', `/v1/qr-codes/${c.id}`, { key: ws.apiKey, body: { folder_id: made.body.id, tags: ['spring'] } });
      expect(filed.status).toBe(200);
    }
    for (const q of QUERIES) {
      const byIds = await call('GET', `/v1/analytics${q}${q ? '&' : '?'}${listed}`);
      for (const sel of [`folder_id=${made.body.id}`, 'tag=spring', 'type=url']) {
        const res = await call('GET', `/v1/analytics${q}${q ? '&' : '?'}${sel}`);
        expect([q, sel, res.status]).toEqual([q, sel, 200]);
        expect([q, sel, res.body]).toEqual([q, sel, byIds.body]);
      }
    }

    // Breakdowns of a range in another zone are its local days exactly (whole UTC days from the daily rollups, the
    // ends added or taken back from raw scans): the same as counting the scans themselves.
    const counted = records.filter((r) => codes.some((c) => c.id === r.qr_code_id) && !r.expired);
    for (const [q, lo, hi] of [
      ['?from=2026-10-24&to=2026-10-27&timezone=Europe/Paris', '2026-10-23T22:00:00Z', '2026-10-27T23:00:00Z'],
      ['?from=2026-10-24&to=2026-11-15&timezone=America/New_York', '2026-10-24T04:00:00Z', '2026-11-16T05:00:00Z'],
      ['?from=2026-10-24&to=2026-11-15&timezone=Asia/Kolkata', '2026-10-23T18:30:00Z', '2026-11-15T18:30:00Z'],
    ]) {
      const inRange = counted.filter((r) => r.scanned_at >= new Date(lo).toISOString() && r.scanned_at < new Date(hi).toISOString());
      const top = (f: (r: ScanRecord) => string | null | undefined) => {
        const n = new Map<string, number>();
        for (const r of inRange) n.set(f(r) ?? 'Unknown', (n.get(f(r) ?? 'Unknown') ?? 0) + 1);
        return [...n].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
      };
      for (const sel of ['', `&${listed}`]) {
        const body = (await call('GET', `/v1/analytics${q}${sel}`)).body;
        // Totals come from hourly rollups: exact in whole-hour zones (Kolkata's are documented as by UTC hour).
        if (!q.includes('Kolkata')) expect([q, sel, body.total_scans]).toEqual([q, sel, inRange.length]);
        expect([q, sel, body.countries, body.cities, body.languages]).toEqual([q, sel, top((r) => r.country), top((r) => r.city), top((r) => r.language)]);
      }
    }

    // The data really spans what the queries compare: scans on both sides of the DST change, uniques and expired.
    const all = (await call('GET', '/v1/analytics?from=2026-10-24&to=2026-10-27&timezone=Europe/Paris')).body;
    expect(all.total_scans).toBeGreaterThan(150);
    expect(all.unique_scans).toBeGreaterThan(0);
    expect(all.unique_scans).toBeLessThan(all.total_scans);
    expect(all.expired_scans).toBeGreaterThan(0);
    expect(all.scans_by_interval.map((p: { start: string }) => p.start.slice(19))).toEqual(['+02:00', '+02:00', '+01:00', '+01:00']);

    // Restoring the trashed code brings its scans back into the whole-workspace answer.
    expect((await call('POST', `/v1/qr-codes/${trashed.id}/restore`)).status).toBe(200);
    const restored = await call('GET', '/v1/analytics?timezone=Europe/Paris');
    const withTrashed = await call('GET', `/v1/analytics?timezone=Europe/Paris&${listed}&qr_code_id=${trashed.id}`);
    expect(restored.body).toEqual(withTrashed.body);
    expect(restored.body.total_scans).toBeGreaterThan((await call('GET', '/v1/analytics?timezone=Europe/Paris&' + listed)).body.total_scans);
  });

  it('keeps every workspace rollup equal to the sum of its codes’ rollups when codes are deleted', async () => {
    const em = db(t);
    const pairs = [
      ['scan_org_days', 'scan_days', 'day', 'count, uniques'],
      ['scan_org_hours', 'scan_hours', 'hour', 'count, uniques, expired'],
      ['scan_org_day_values', 'scan_day_values', 'dimension, day, value', 'count'],
      ['scan_org_value_totals', 'scan_value_totals', 'dimension, value', 'count'],
    ];
    for (const [org, perCode, keys, sums] of pairs) {
      const total = sums.split(', ').map((c) => `sum(${c})::text as ${c}`).join(', ');
      const nonZero = sums.split(', ').map((c) => `sum(${c}) <> 0`).join(' or ');
      const workspace = await em.execute(
        `select ${keys}, ${total} from ${org} where organization_id = ? group by ${keys} having ${nonZero} order by ${keys}`,
        [ws.organizationId],
      );
      const codes = await em.execute(
        `select ${keys}, ${total} from ${perCode} r join qr_codes q on q.id = r.qr_code_id where q.organization_id = ?
          group by ${keys} having ${nonZero} order by ${keys}`,
        [ws.organizationId],
      );
      expect([org, workspace.length]).not.toEqual([org, 0]);
      expect([org, workspace]).toEqual([org, codes]);
    }
  });
});
