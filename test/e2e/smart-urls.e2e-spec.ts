import { request } from 'node:http';
import Redis from 'ioredis';
import { ScanBuffer } from '../../src/modules/scan/scan-buffer';
import { SCAN_STREAM, type ScanRecord } from '../../src/modules/scan/scan-contract';
import { TEST_GEO_HEADER } from '../../src/modules/scan/scan-hot-path';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { createCode, createOrg, eventually, http, isolatedRedisUrl, startApi, startScan, type TestApp, type TestOrg } from '../setup/app';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** Smart URLs (rules decided on the real scan host) and link controls. */
describe('smart URLs and link controls', () => {
  const REDIS_URL = isolatedRedisUrl(18);
  let api: TestApp;
  let scan: TestApp;
  let scan2: TestApp;
  let org: TestOrg;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    await redis.del(SCAN_STREAM);
    api = await startApi();
    scan = await startScan({ REDIS_URL }, { testGeoHeader: true });
    scan2 = await startScan({ REDIS_URL });
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await scan2?.close();
    await scan?.close();
    await api?.close();
    redis?.disconnect();
  });

  const get = (path: string, opts: { ua?: string; headers?: Record<string, string>; app?: TestApp } = {}) =>
    fetch(`${(opts.app ?? scan).origin}${path}`, { redirect: 'manual', headers: { 'user-agent': opts.ua ?? DESKTOP, ...(opts.headers ?? {}) } });
  const locationOf = async (path: string, opts: { ua?: string; headers?: Record<string, string>; app?: TestApp } = {}) => {
    const res = await get(path, opts);
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return res.headers.get('location');
  };
  const smart = (rules: unknown[], extra: Record<string, unknown> = {}) =>
    createCode(api, org, { target: { type: 'smarturl', default_url: 'https://default.example/', rules }, ...extra });
  const recordsFor = async (id: string): Promise<ScanRecord[]> => {
    await scan.app.get(ScanBuffer).flush();
    const entries = await redis.xrange(SCAN_STREAM, '-', '+');
    // The compact stream form carries what the analytics consumer stores; the records themselves are checked here
    // through the buffer's own view when the encoding does not (yet) carry rule_id/arm/expired.
    return entries.flatMap(([, fields]) => {
      const i = fields.indexOf('c');
      const body = JSON.parse(fields[i + 1]) as { k: [string, string][]; r: unknown[][] };
      return body.r.filter((r) => body.k[r[1] as number][0] === id).map((r) => ({ id: r[0] }) as unknown as ScanRecord);
    });
  };

  describe('smarturl codes', () => {
    it('creates a code with rules: ids, summary, page-holding target; PATCH target → 409', async () => {
      const c = await smart([
        { name: 'France', if: { country: ['FR'] }, then: { destination: 'https://fr.example/' } },
        { then: { split: [{ destination: 'https://a.example/', weight: 1 }, { destination: 'https://b.example/', weight: 1 }] } },
      ]);
      const target = c.target as Record<string, any>;
      expect(target).toMatchObject({ type: 'smarturl', default_url: 'https://default.example/', destination: c.short_url, editable: false, summary: { rules: 2, splits: 1 } });
      expect(target.rules.map((r: { id: string }) => r.id)).toEqual([expect.stringMatching(/^rul_[0-9A-Za-z]{20}$/), expect.stringMatching(/^rul_/)]);
      expect(target.rules[0]).toEqual({ id: target.rules[0].id, name: 'France', if: { country: ['FR'] }, then: { destination: 'https://fr.example/' } });
      const got = await http(api.origin, 'GET', `/v1/qr-codes/${c.id}`, { key: org.apiKey });
      expect(got.body.target.rules).toEqual(target.rules);
      const patched = await http(api.origin, 'PATCH', `/v1/qr-codes/${c.id}`, { key: org.apiKey, body: { target: { default_url: 'https://x.example' } } });
      expect(patched.status).toBe(409);
      expect(patched.body.error.code).toBe('target_not_editable');
      const stat = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type: 'static', target: { type: 'smarturl', default_url: 'https://d.example' } } });
      expect(stat.status).toBe(400);
      expect(stat.body.error.field).toBe('type');
    });

    it('refuses malformed rules with 400 naming the path', async () => {
      const cases: [unknown[], string][] = [
        [[{ then: { destination: 'https://a.example' } }, { then: { destination: 'https://a.example' } }, { then: { destination: 'https://a.example' } }, { if: { time: { from: '09:00', timezone: 'Nowhere/City' } }, then: { destination: 'https://a.example' } }], 'target.rules[3].if.time.timezone'],
        [[{ if: { planet: ['mars'] }, then: { destination: 'https://a.example' } }], 'target.rules[0].if.planet'],
        [[{ if: { country: ['QQ'] }, then: { destination: 'https://a.example' } }], 'target.rules[0].if.country[0]'],
        [[{ if: { region: ['FR-XX'] }, then: { destination: 'https://a.example' } }], 'target.rules[0].if.region[0]'],
        [[{ if: { language: ['qq'] }, then: { destination: 'https://a.example' } }], 'target.rules[0].if.language[0]'],
        [[{ then: { split: [{ destination: 'https://a.example', weight: 0 }] } }], 'target.rules[0].then.split[0].weight'],
        [[{ if: { date: { from: '2026-07-01T00:00:00Z', to: '2026-06-01T00:00:00Z' } }, then: { destination: 'https://a.example' } }], 'target.rules[0].if.date.from'],
        [[{ if: { time: { from: '25:00', timezone: 'UTC' } }, then: { destination: 'https://a.example' } }], 'target.rules[0].if.time.from'],
        [Array.from({ length: 21 }, () => ({ then: { destination: 'https://a.example' } })), 'target.rules'],
        [[{ then: { split: Array.from({ length: 11 }, () => ({ destination: 'https://a.example', weight: 1 })) } }], 'target.rules[0].then.split'],
      ];
      for (const [rules, field] of cases) {
        const res = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'smarturl', default_url: 'https://d.example', rules } } });
        expect([res.status, res.body.error?.code, res.body.error?.field]).toEqual([400, 'invalid_request', field]);
      }
    });

    it('decides each scan by device, OS and language headers; first matching rule wins', async () => {
      const c = await smart([
        { if: { os: ['android'] }, then: { destination: 'https://android.example/' } },
        { if: { device: ['mobile'], language: ['fr'] }, then: { destination: 'https://mobile-fr.example/' } },
        { if: { device: ['mobile'] }, then: { destination: 'https://mobile.example/' } },
        { if: { language: ['de-AT'] }, then: { destination: 'https://at.example/' } },
      ]);
      expect(await locationOf(`/${c.short_code}`, { ua: ANDROID, headers: { 'accept-language': 'fr-FR' } })).toBe('https://android.example/');
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE, headers: { 'accept-language': 'fr-CA,en;q=0.5' } })).toBe('https://mobile-fr.example/');
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE, headers: { 'accept-language': 'en-GB' } })).toBe('https://mobile.example/');
      // The preference is the highest quality, not the first listed.
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE, headers: { 'accept-language': 'en-GB;q=0.2, fr-CA;q=0.9' } })).toBe('https://mobile-fr.example/');
      expect(await locationOf(`/${c.short_code}`, { headers: { 'accept-language': 'de-AT' } })).toBe('https://at.example/');
      expect(await locationOf(`/${c.short_code}`, { headers: { 'accept-language': 'de-DE' } })).toBe('https://default.example/');
    });

    it('country and region: the scan host (test-only geo header) and the rule tester agree', async () => {
      const c = await smart([
        { if: { region: ['US-CA'] }, then: { destination: 'https://california.example/' } },
        { if: { country: ['US', 'CA'] }, then: { destination: 'https://north-america.example/' } },
      ]);
      const rules = (c.target as { rules: { id: string }[] }).rules;
      expect(await locationOf(`/${c.short_code}`, { headers: { [TEST_GEO_HEADER]: 'US-CA' } })).toBe('https://california.example/');
      expect(await locationOf(`/${c.short_code}`, { headers: { [TEST_GEO_HEADER]: 'US-NY' } })).toBe('https://north-america.example/');
      expect(await locationOf(`/${c.short_code}`, { headers: { [TEST_GEO_HEADER]: 'FR' } })).toBe('https://default.example/');
      // A process started without the test option ignores the header.
      expect(await locationOf(`/${c.short_code}`, { app: scan2, headers: { [TEST_GEO_HEADER]: 'US-CA' } })).toBe('https://default.example/');
      const test = (body: Record<string, unknown>) => http(api.origin, 'POST', `/v1/qr-codes/${c.id}/rules/test`, { key: org.apiKey, body });
      expect((await test({ region: 'US-CA' })).body).toEqual({ rule_id: rules[0].id, destination: 'https://california.example/' });
      expect((await test({ country: 'CA' })).body).toEqual({ rule_id: rules[1].id, destination: 'https://north-america.example/' });
      expect((await test({ country: 'FR' })).body).toEqual({ rule_id: null, destination: 'https://default.example/' });
      const bad = await test({ country: 'XX' });
      expect([bad.status, bad.body.error.field]).toEqual([400, 'country']);
      const unknown = await test({ city: 'Paris' });
      expect([unknown.status, unknown.body.error.field]).toEqual([400, 'city']);
    });

    it('time windows and dates through the rule tester', async () => {
      const c = await smart([
        { if: { time: { days: ['fri'], from: '22:00', to: '02:00', timezone: 'Europe/Paris' } }, then: { destination: 'https://night.example/' } },
        { if: { date: { from: '2030-01-01T00:00:00Z' } }, then: { destination: 'https://future.example/' } },
      ]);
      const test = async (at: string) => (await http(api.origin, 'POST', `/v1/qr-codes/${c.id}/rules/test`, { key: org.apiKey, body: { at } })).body.destination;
      expect(await test('2026-05-08T22:30:00Z')).toBe('https://night.example/'); // Saturday 00:30 CEST: Friday's window
      expect(await test('2026-05-09T22:30:00Z')).toBe('https://default.example/'); // Sunday 00:30
      expect(await test('2030-06-01T12:00:00Z')).toBe('https://future.example/');
    });

    it('splits 50/50 within statistical bounds over 2,000 scans, and the tester names the candidates', async () => {
      const c = await smart([{ then: { split: [{ destination: 'https://a.example/', weight: 50 }, { destination: 'https://b.example/', weight: 50 }] } }]);
      const counts: Record<string, number> = {};
      for (let i = 0; i < 2000; i += 50) {
        const batch = await Promise.all(Array.from({ length: 50 }, () => locationOf(`/${c.short_code}`, { ua: IPHONE })));
        for (const l of batch) counts[l!] = (counts[l!] ?? 0) + 1;
      }
      expect(Object.keys(counts).sort()).toEqual(['https://a.example/', 'https://b.example/']);
      // Binomial(2000, 0.5): σ ≈ 22.4; ±5σ.
      expect(counts['https://a.example/']).toBeGreaterThan(888);
      expect(counts['https://a.example/']).toBeLessThan(1112);
      const tested = await http(api.origin, 'POST', `/v1/qr-codes/${c.id}/rules/test`, { key: org.apiKey, body: {} });
      expect(tested.body).toEqual({
        rule_id: (c.target as { rules: { id: string }[] }).rules[0].id,
        split: [{ destination: 'https://a.example/', weight: 50 }, { destination: 'https://b.example/', weight: 50 }],
        arm_candidates: [0, 1],
      });
      await eventually(async () => (await recordsFor(c.id)).length === 2000, 5_000, 'the 2,000 scans queued');
    }, 120_000);

    it('scans thresholds follow the scan number (inclusive bounds)', async () => {
      const c = await smart([
        { if: { scans: { to: 3 } }, then: { destination: 'https://first-three.example/' } },
        { if: { scans: { from: 4, to: 5 } }, then: { destination: 'https://next-two.example/' } },
      ]);
      const got: (string | null)[] = [];
      for (let i = 0; i < 7; i++) got.push(await locationOf(`/${c.short_code}`, { ua: IPHONE }));
      expect(got).toEqual([
        'https://first-three.example/', 'https://first-three.example/', 'https://first-three.example/',
        'https://next-two.example/', 'https://next-two.example/', 'https://default.example/', 'https://default.example/',
      ]);
      // HEAD requests and bots are answered but take no scan number.
      expect(await locationOf(`/${c.short_code}`, { ua: 'facebookexternalhit/1.1' })).toBe('https://default.example/');
    });

    it('PUT content: rules change on the next scan of every scan process; ids sent back are kept; the short URL stays', async () => {
      const c = await smart([{ if: { device: ['desktop'] }, then: { destination: 'https://old.example/' } }]);
      expect(await locationOf(`/${c.short_code}`, { app: scan2 })).toBe('https://old.example/');
      const kept = (c.target as { rules: { id: string }[] }).rules[0];
      const res = await http(api.origin, 'PUT', `/v1/qr-codes/${c.id}/content`, {
        key: org.apiKey,
        body: { default_url: 'https://default2.example/', rules: [{ if: { os: ['ios'] }, then: { destination: 'https://ios.example/' } }, { ...kept, then: { destination: 'https://new.example/' } }] },
      });
      expect(res.status).toBe(200);
      expect(res.body.short_url).toBe(c.short_url);
      expect(res.body.image_url).toBe(c.image_url);
      expect(res.body.target.rules[1].id).toBe(kept.id);
      expect(res.body.target.rules[0].id).not.toBe(kept.id);
      await eventually(async () => (await locationOf(`/${c.short_code}`, { app: scan2 })) === 'https://new.example/', 3_000, 'the new rules on the second scan process');
      expect(await locationOf(`/${c.short_code}`, { app: scan2, ua: IPHONE })).toBe('https://ios.example/');
      const bad = await http(api.origin, 'PUT', `/v1/qr-codes/${c.id}/content`, { key: org.apiKey, body: { default_url: 'https://d.example', rules: [{ if: { scans: { from: 0 } }, then: { destination: 'https://a.example' } }] } });
      expect([bad.status, bad.body.error.field]).toEqual([400, 'rules[0].if.scans.from']);
    });

    it('the very next scan after an answered edit gets the new content, on either scan process', async () => {
      const c = await smart([]);
      const stale: string[] = [];
      for (let i = 0; i < 100; i++) {
        const app = i % 2 ? scan2 : scan;
        await locationOf(`/${c.short_code}`, { app }); // cached in that process before the edit
        const destination = `https://edit${i}.example/`;
        const res = await http(api.origin, 'PUT', `/v1/qr-codes/${c.id}/content`, { key: org.apiKey, body: { default_url: destination, rules: [] } });
        expect(res.status).toBe(200);
        const got = await locationOf(`/${c.short_code}`, { app });
        if (got !== destination) stale.push(`edit ${i}: ${got}`);
      }
      expect(stale).toEqual([]);
    });

    it("rule ids are the server's: a made-up id or another code's is replaced, on creation and through PUT content", async () => {
      const madeUp = 'rul_AAAAAAAAAAAAAAAAAAAA';
      const first = await smart([{ id: madeUp, name: 'Made up', then: { destination: 'https://a.example/' } }]);
      const firstId = (first.target as { rules: { id: string }[] }).rules[0].id;
      expect(firstId).toMatch(/^rul_[0-9A-Za-z]{16,}$/);
      expect(firstId).not.toBe(madeUp);
      // Another code sending the first code's id gets its own.
      const second = await smart([{ id: firstId, then: { destination: 'https://b.example/' } }]);
      const secondId = (second.target as { rules: { id: string }[] }).rules[0].id;
      expect(secondId).not.toBe(firstId);
      const put = await http(api.origin, 'PUT', `/v1/qr-codes/${second.id}/content`, {
        key: org.apiKey,
        body: { default_url: 'https://default.example/', rules: [{ id: secondId, then: { destination: 'https://b2.example/' } }, { id: firstId, then: { destination: 'https://c.example/' } }] },
      });
      expect(put.status).toBe(200);
      const ids = (put.body.target as { rules: { id: string }[] }).rules.map((r) => r.id);
      expect(ids[0]).toBe(secondId);
      expect(ids[1]).not.toBe(firstId);
      expect(ids[1]).toMatch(/^rul_[0-9A-Za-z]{16,}$/);
    });

    it('refuses an `if` of null by its path, and the rule tester refuses a body of null, a region outside the country, and codes without rules (422)', async () => {
      const refused = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'smarturl', default_url: 'https://d.example/', rules: [{ if: null, then: { destination: 'https://a.example/' } }] } } });
      expect([refused.status, refused.body.error.field]).toEqual([400, 'target.rules[0].if']);
      const c = await smart([{ if: { country: ['US'] }, then: { destination: 'https://us.example/' } }]);
      const tester = (id: string, body: unknown) =>
        fetch(`${api.origin}/v1/qr-codes/${id}/rules/test`, { method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const nullBody = await tester(c.id, null);
      expect(nullBody.status).toBe(400);
      const contradiction = await tester(c.id, { country: 'US', region: 'FR-IDF' });
      expect([contradiction.status, ((await contradiction.json()) as { error: { field: string } }).error.field]).toEqual([400, 'region']);
      const url = await createCode(api, org, { target: { type: 'url', destination: 'https://plain.example/' } });
      const notSmart = await tester(url.id, {});
      expect([notSmart.status, ((await notSmart.json()) as { error: { code: string } }).error.code]).toEqual([422, 'rules_not_supported']);
    });
  });

  it("the rule tester's next scan is the scan host's own number, not the worker's stored count", async () => {
    // An api on the scan processes' Redis (the one every deployment shares); no worker runs here, so the stored count stays 0.
    const sharedApi = await startApi({ REDIS_URL });
    try {
      const c = await smart([{ if: { scans: { from: 6 } }, then: { destination: 'https://sixth.example/' } }]);
      for (let i = 0; i < 5; i++) expect(await locationOf(`/${c.short_code}`, { ua: IPHONE })).toBe('https://default.example/');
      const next = async () => (await http(sharedApi.origin, 'POST', `/v1/qr-codes/${c.id}/rules/test`, { key: org.apiKey, body: {} })).body.destination;
      await eventually(async () => (await next()) === 'https://sixth.example/', 3_000, 'the tester sees five scans');
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE })).toBe('https://sixth.example/');
    } finally {
      await sharedApi.close();
    }
  });

  describe('PUT /qr-codes/{id}/content', () => {
    it('concurrent edits of one code apply one after the other: the last answered is what stays, and each audit entry starts from the one before', async () => {
      const lp = await createCode(api, org, { target: { type: 'linkpage', title: 'Edit 0', links: [{ title: 'Shop', url: 'https://shop.example' }] } });
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          http(api.origin, 'PUT', `/v1/qr-codes/${lp.id}/content`, { key: org.apiKey, body: { title: `Edit ${i + 1}`, links: [{ title: 'Shop', url: 'https://shop.example' }] } }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
      const byTime = answers.map((a) => a.body).sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at));
      expect(new Set(byTime.map((b) => b.updated_at)).size).toBe(12);
      const now = (await http(api.origin, 'GET', `/v1/qr-codes/${lp.id}`, { key: org.apiKey })).body;
      expect([now.target.title, now.updated_at]).toEqual([byTime[11].target.title, byTime[11].updated_at]);
      const log = await http(api.origin, 'GET', `/v1/audit-log?resource_id=${lp.id}&action=qr_code.updated&limit=100`, { key: org.apiKey });
      expect(log.status).toBe(200);
      const titles = (log.body.data as { changes: { target: [{ title: string }, { title: string }] } }[]).reverse().map((e) => [e.changes.target[0].title, e.changes.target[1].title]);
      expect(titles).toEqual(byTime.map((b, i) => [i === 0 ? 'Edit 0' : byTime[i - 1].target.title, b.target.title]));
    });

    it("every request example the document gives for it is accepted for a code of the example's type", async () => {
      const doc = (await http(api.origin, 'GET', '/docs/openapi.json')).body;
      const examples = doc.paths['/v1/qr-codes/{id}/content'].put.requestBody.content['application/json'].examples as Record<string, { value: Record<string, unknown> }>;
      const seeds: Record<string, Record<string, unknown>> = {
        smarturl: { type: 'smarturl', default_url: 'https://d.example/' },
        linkpage: { type: 'linkpage', title: 'T', links: [{ title: 'A', url: 'https://a.example' }] },
        review: { type: 'review', review_page: { title: 'T', links: [{ platform: 'google', url: 'https://g.page/r/x/review' }] } },
        form: { type: 'form', title: 'T', fields: [{ name: 'email', label: 'E-mail', type: 'email' }] },
        menupage: { type: 'menupage', title: 'T', sections: [{ name: 'S', items: [{ name: 'I' }] }] },
        appstores: { type: 'appstores', ios_url: 'https://apps.apple.com/app/id1', fallback_url: 'https://a.example' },
      };
      const tried: string[] = [];
      for (const [name, { value }] of Object.entries(examples)) {
        const type = (value.type as string | undefined) ?? 'smarturl';
        if (type === 'file') continue; // names a file of the document's own workspace (file-codes.e2e-spec.ts swaps files)
        const code = await createCode(api, org, { target: seeds[type] });
        const res = await http(api.origin, 'PUT', `/v1/qr-codes/${code.id}/content`, { key: org.apiKey, body: value });
        expect({ name, status: res.status, error: res.body.error }).toEqual({ name, status: 200, error: undefined });
        tried.push(type);
      }
      expect(new Set(tried)).toEqual(new Set(Object.keys(seeds)));
    });

    it('edits a link page, a menu and a form; refuses non-page codes with 409', async () => {
      const lp = await createCode(api, org, { target: { type: 'linkpage', title: 'Old title', links: [{ title: 'Shop', url: 'https://shop.example' }] } });
      expect(await (await get(`/${lp.short_code}`, { app: scan2 })).text()).toContain('Old title');
      const res = await http(api.origin, 'PUT', `/v1/qr-codes/${lp.id}/content`, { key: org.apiKey, body: { title: 'New title', links: [{ title: 'Blog', url: 'https://blog.example' }] } });
      expect(res.status).toBe(200);
      expect(res.body.target.summary).toEqual({ title: 'New title', link_count: 1 });
      const page = await eventually(async () => {
        const html = await (await get(`/${lp.short_code}`, { app: scan2 })).text();
        return html.includes('New title') && html;
      }, 3_000, 'the new page on the second scan process');
      expect(page).not.toContain('Old title');
      const missing = await http(api.origin, 'PUT', `/v1/qr-codes/${lp.id}/content`, { key: org.apiKey, body: { title: 'No links' } });
      expect([missing.status, missing.body.error.field]).toEqual([400, 'links']);

      const menu = await createCode(api, org, { target: { type: 'menupage', title: 'Menu', sections: [{ name: 'Coffee', items: [{ name: 'Espresso' }] }] } });
      const menuRes = await http(api.origin, 'PUT', `/v1/qr-codes/${menu.id}/content`, { key: org.apiKey, body: { title: 'Menu', sections: [{ name: 'Tea', items: [{ name: 'Sencha', price: 3 }] }] } });
      expect(menuRes.status).toBe(200);
      await eventually(async () => (await (await get(`/${menu.short_code}`, { app: scan2 })).text()).includes('Sencha'), 3_000, 'the new menu');

      const form = await createCode(api, org, { target: { type: 'form', title: 'Join', fields: [{ name: 'email', label: 'E-mail', type: 'email' }] } });
      const formRes = await http(api.origin, 'PUT', `/v1/qr-codes/${form.id}/content`, { key: org.apiKey, body: { title: 'Join us', fields: [{ name: 'name', label: 'Your name' }] } });
      expect(formRes.body.target.summary).toMatchObject({ title: 'Join us', field_count: 1 });
      await eventually(async () => (await (await get(`/${form.short_code}`, { app: scan2 })).text()).includes('Your name'), 3_000, 'the new form');

      const review = await createCode(api, org, { target: { type: 'review', review_page: { title: 'Rate us', links: [{ platform: 'Google', url: 'https://g.page/r/x' }] } } });
      const reviewRes = await http(api.origin, 'PUT', `/v1/qr-codes/${review.id}/content`, {
        key: org.apiKey,
        body: { type: 'review', review_page: { title: 'Tell us how we did', links: [{ platform: 'Yelp', url: 'https://yelp.example/biz' }] } },
      });
      expect(reviewRes.status).toBe(200);
      await eventually(async () => (await (await get(`/${review.short_code}`, { app: scan2 })).text()).includes('Tell us how we did'), 3_000, 'the new review page');
      const wrongType = await http(api.origin, 'PUT', `/v1/qr-codes/${review.id}/content`, { key: org.apiKey, body: { type: 'linkpage', title: 'x', links: [] } });
      expect([wrongType.status, wrongType.body.error.field]).toEqual([400, 'type']);

      const stores = await createCode(api, org, { target: { type: 'appstores', ios_url: 'https://apps.apple.com/app/id1' } });
      const storesRes = await http(api.origin, 'PUT', `/v1/qr-codes/${stores.id}/content`, { key: org.apiKey, body: { ios_url: 'https://apps.apple.com/app/id2', android_url: 'https://play.google.com/store/apps/details?id=y' } });
      expect(storesRes.status).toBe(200);
      await eventually(async () => (await locationOf(`/${stores.short_code}`, { app: scan2, ua: IPHONE })) === 'https://apps.apple.com/app/id2', 3_000, 'the new store link');
      expect(await locationOf(`/${stores.short_code}`, { app: scan2, ua: ANDROID })).toBe('https://play.google.com/store/apps/details?id=y');

      const gs1 = await createCode(api, org, { type: 'gs1', primary_key: { ai: '01', value: randomGtin() }, destination: 'https://brand.example/default' });
      const gs1Res = await http(api.origin, 'PUT', `/v1/qr-codes/${gs1.id}/content`, { key: org.apiKey, body: { destination: 'https://brand.example/other' } });
      expect([gs1Res.status, gs1Res.body.error.code]).toEqual([409, 'target_not_editable']);

      const url = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com' } });
      const refused = await http(api.origin, 'PUT', `/v1/qr-codes/${url.id}/content`, { key: org.apiKey, body: { destination: 'https://example.org' } });
      expect([refused.status, refused.body.error.code]).toEqual([409, 'target_not_editable']);
      expect(refused.body.error.message).toContain(`PATCH /v1/qr-codes/${url.id}`);
      // A static code's content is printed in it: the message does not send the user to PATCH, which refuses it too.
      const printed = await createCode(api, org, { type: 'static', target: { type: 'text', text: 'printed' } });
      const staticRes = await http(api.origin, 'PUT', `/v1/qr-codes/${printed.id}/content`, { key: org.apiKey, body: { text: 'other' } });
      expect([staticRes.status, staticRes.body.error.code]).toEqual([409, 'target_not_editable']);
      expect(staticRes.body.error.message).not.toContain('PATCH');
      const foreign = await createOrg(api, { plan: 'pro' });
      const other = await http(api.origin, 'PUT', `/v1/qr-codes/${lp.id}/content`, { key: foreign.apiKey, body: { title: 'x', links: [] } });
      expect(other.status).toBe(404);
    });
  });

  describe('link controls', () => {
    const patch = (id: string, body: Record<string, unknown>) => http(api.origin, 'PATCH', `/v1/qr-codes/${id}`, { key: org.apiKey, body });

    it('reports the controls, validates them, and null clears them', async () => {
      const c = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com' }, max_scans: 5, expired_url: 'https://example.com/over', password: 'open sesame' });
      expect(c).toMatchObject({ max_scans: 5, expired_url: 'https://example.com/over', expires_at: null, has_password: true });
      expect(JSON.stringify(c)).not.toContain('open sesame');
      expect(c).not.toHaveProperty('password');
      const cleared = await patch(c.id, { max_scans: null, password: null, expires_at: '2099-01-01T00:00:00Z' });
      expect(cleared.body).toMatchObject({ max_scans: null, has_password: false, expires_at: '2099-01-01T00:00:00.000Z' });
      const bad: [Record<string, unknown>, string][] = [
        [{ max_scans: 0 }, 'max_scans'],
        [{ max_scans: 10_000_001 }, 'max_scans'],
        [{ expired_url: 'http://example.com/over' }, 'expired_url'],
        [{ password: 'abc' }, 'password'],
        [{ expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
        [{ expires_at: 'tomorrow' }, 'expires_at'],
      ];
      for (const [body, field] of bad) {
        const created = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com' }, ...body } });
        expect([created.status, created.body.error.field]).toEqual([400, field]);
        const patched = await patch(c.id, body);
        expect([patched.status, patched.body.error.field]).toEqual([400, field]);
      }
      const stat = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type: 'static', target: { type: 'url', destination: 'https://example.com' }, max_scans: 3 } });
      expect([stat.status, stat.body.error.field]).toEqual([400, 'max_scans']);
    });

    it('expires by count: 302 to expired_url after max_scans, counted apart', async () => {
      const c = await createCode(api, org, { target: { type: 'url', destination: 'https://live.example/' }, max_scans: 2, expired_url: 'https://example.com/over' });
      const got = [];
      for (let i = 0; i < 4; i++) got.push(await locationOf(`/${c.short_code}`, { ua: IPHONE }));
      expect(got).toEqual(['https://live.example/', 'https://live.example/', 'https://example.com/over', 'https://example.com/over']);
      // Expired scans are counted too (apart, by the analytics): four queued scans.
      await eventually(async () => (await recordsFor(c.id)).length === 4, 5_000, 'four queued scans');
    });

    it('scan limits hold across two scan processes, which share their counts through Redis within a second', async () => {
      const c = await createCode(api, org, { target: { type: 'url', destination: 'https://live.example/' }, max_scans: 4 });
      const pause = () => new Promise((r) => setTimeout(r, 800));
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE })).toBe('https://live.example/');
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE })).toBe('https://live.example/');
      await pause();
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE, app: scan2 })).toBe('https://live.example/');
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE, app: scan2 })).toBe('https://live.example/');
      await pause();
      expect((await get(`/${c.short_code}`, { ua: IPHONE })).status).toBe(410);
      expect((await get(`/${c.short_code}`, { ua: IPHONE, app: scan2 })).status).toBe(410);
    });

    it('expires by date: the 410 expired page once expires_at has passed', async () => {
      const c = await createCode(api, org, { target: { type: 'url', destination: 'https://live.example/' }, expires_at: new Date(Date.now() + 1500).toISOString() });
      expect(await locationOf(`/${c.short_code}`)).toBe('https://live.example/');
      await new Promise((r) => setTimeout(r, 1600));
      const res = await get(`/${c.short_code}`);
      expect(res.status).toBe(410);
      expect(res.headers.get('x-robots-tag')).toBe('noindex, nofollow');
      expect(await res.text()).toContain('This code has expired');
      const reopened = await patch(c.id, { expires_at: null });
      expect(reopened.body.expires_at).toBeNull();
      await eventually(async () => (await get(`/${c.short_code}`)).status === 302, 3_000, 'the redirect again');
      expect(await locationOf(`/${c.short_code}`)).toBe('https://live.example/');
    });

    it('an expired code with a password: the scan gets the expired answer, and its unlock form sends the browser back to it', async () => {
      const c = await createCode(api, org, { target: { type: 'url', destination: 'https://live.example/' }, password: 'open sesame', expires_at: new Date(Date.now() + 1500).toISOString() });
      const unlock = (password: string) =>
        fetch(`${scan.origin}/${c.short_code}/unlock`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ password }).toString() });
      expect((await unlock('wrong')).status).toBe(200); // the password page, with its error
      await new Promise((r) => setTimeout(r, 1600));
      expect((await get(`/${c.short_code}`)).status).toBe(410);
      for (const password of ['wrong', 'open sesame']) {
        const res = await unlock(password);
        expect([password, res.status, res.headers.get('location'), res.headers.get('set-cookie')]).toEqual([password, 302, `${scan.origin}/${c.short_code}`, null]);
      }
    });

    it('password: page (200, noindex, no referrer), wrong → the page again (200), right → 302 with a 12 h httpOnly cookie for that code', async () => {
      const c = await createCode(api, org, { target: { type: 'url', destination: 'https://secret.example/' }, password: 'correct horse' });
      const first = await get(`/${c.short_code}`, { ua: IPHONE });
      expect(first.status).toBe(200);
      expect(first.headers.get('referrer-policy')).toBe('no-referrer');
      expect(first.headers.get('x-robots-tag')).toBe('noindex, nofollow');
      const html = await first.text();
      expect(html).toContain('<meta name="robots" content="noindex, nofollow">');
      expect(html).toContain(`action="/${c.short_code}/unlock"`);
      expect(html).toMatch(/<label for="password">Password<\/label>/);
      const unlock = (password: string) =>
        fetch(`${scan.origin}/${c.short_code}/unlock`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': IPHONE }, body: new URLSearchParams({ password }).toString() });
      const wrong = await unlock('wrong horse');
      expect([wrong.status, wrong.headers.get('set-cookie')]).toEqual([200, null]);
      expect(await wrong.text()).toContain('The password is not right');
      // Only a single text value is a password: the right one inside a JSON array is a wrong try.
      const asArray = await fetch(`${scan.origin}/${c.short_code}/unlock`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: ['correct horse'] }) });
      expect([asArray.status, asArray.headers.get('set-cookie')]).toEqual([200, null]);
      // Posted on the short URL's own host, the right password goes back to short_url; on another name of the scan
      // host (here its loopback address), back to that host, which the cookie was set for.
      const onShortUrlHost = await new Promise<[number | undefined, string | undefined]>((resolve, reject) => {
        const body = new URLSearchParams({ password: 'correct horse' }).toString();
        const headers = { host: new URL(c.short_url!).host, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) };
        const req = request(`${scan.origin}/${c.short_code}/unlock`, { method: 'POST', headers }, (res) => {
          res.resume();
          resolve([res.statusCode, res.headers.location]);
        });
        req.on('error', reject);
        req.end(body);
      });
      expect(onShortUrlHost).toEqual([302, c.short_url]);
      const right = await unlock('correct horse');
      expect(right.status).toBe(302);
      expect(right.headers.get('location')).toBe(`${scan.origin}/${c.short_code}`);
      const cookie = right.headers.get('set-cookie')!;
      expect(cookie).toMatch(new RegExp(`^scanlink_unlock_${c.short_code}=\\d+\\.[A-Za-z0-9_-]+; Path=/; Max-Age=43200; HttpOnly; SameSite=Lax`));
      const pair = cookie.split(';')[0];
      expect(await locationOf(`/${c.short_code}`, { ua: IPHONE, headers: { cookie: pair } })).toBe('https://secret.example/');
      // A forged or another code's cookie opens nothing.
      expect((await get(`/${c.short_code}`, { headers: { cookie: pair.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')) } })).status).toBe(200);
      // A new password invalidates the cookie.
      await patch(c.id, { password: 'battery staple' });
      await eventually(async () => (await get(`/${c.short_code}`, { headers: { cookie: pair } })).status === 200, 3_000, 'the old cookie refused');
    });

    it('GS1 codes take expires_at and expired_url only; after expiry every link type redirects to expired_url', async () => {
      const gtin = randomGtin();
      const refused = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type: 'gs1', primary_key: { ai: '01', value: gtin }, destination: 'https://brand.example/', max_scans: 5 } });
      expect([refused.status, refused.body.error.field]).toEqual([400, 'max_scans']);
      const locked = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type: 'gs1', primary_key: { ai: '01', value: gtin }, destination: 'https://brand.example/', password: 'abcd' } });
      expect([locked.status, locked.body.error.field]).toEqual([400, 'password']);
      const c = await createCode(api, org, {
        type: 'gs1',
        primary_key: { ai: '01', value: gtin },
        destination: 'https://brand.example/default',
        links: [{ linkType: 'gs1:pip', href: 'https://brand.example/pip' }],
        expires_at: new Date(Date.now() + 1500).toISOString(),
        expired_url: 'https://brand.example/recalled',
      });
      expect(c).toMatchObject({ expired_url: 'https://brand.example/recalled', max_scans: null, has_password: false });
      // Without an expired_url, the 410 expired page.
      const plainGtin = randomGtin();
      await createCode(api, org, { type: 'gs1', primary_key: { ai: '01', value: plainGtin }, destination: 'https://brand.example/default', expires_at: new Date(Date.now() + 1500).toISOString() });
      expect((await get(`/01/${gtin}`)).status).toBe(307);
      expect((await get(`/01/${plainGtin}?linkType=linkset`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1600));
      for (const path of [`/01/${plainGtin}`, `/01/${plainGtin}?linkType=linkset`]) expect([path, (await get(path)).status]).toEqual([path, 410]);
      for (const path of [`/01/${gtin}`, `/01/${gtin}?linkType=gs1:pip`, `/01/${gtin}?linkType=linkset`, `/01/${gtin}?linkType=all`]) {
        const res = await get(path);
        expect([path, res.status, res.headers.get('location')]).toEqual([path, 302, 'https://brand.example/recalled']);
      }
      // The linkset asked for by media type is refused too: an expired code's links are no longer served.
      const byAccept = await get(`/01/${gtin}`, { headers: { accept: 'application/linkset+json' } });
      expect([byAccept.status, byAccept.headers.get('location')]).toEqual([302, 'https://brand.example/recalled']);
      // HEAD answers as GET does, and so does a link type the code does not have.
      for (const path of [`/01/${gtin}`, `/01/${gtin}/10/LOT1`, `/01/${gtin}?linkType=gs1:defaultLink`, `/01/${gtin}?linkType=gs1:recipeInfo`]) {
        const res = await fetch(`${scan.origin}${path}`, { method: 'HEAD', redirect: 'manual', headers: { 'user-agent': DESKTOP } });
        expect([path, res.status, res.headers.get('location')]).toEqual([path, 302, 'https://brand.example/recalled']);
      }
      expect([(await get(`/01/${gtin}?linkType=gs1:recipeInfo`)).status]).toEqual([302]);
      for (const path of [`/01/${plainGtin}`, `/01/${plainGtin}?linkType=gs1:recipeInfo`]) {
        const res = await fetch(`${scan.origin}${path}`, { method: 'HEAD', redirect: 'manual', headers: { 'user-agent': DESKTOP } });
        expect([path, res.status]).toEqual([path, 410]);
      }
    });

    it('lead forms: an expired form takes no post; a protected one only from an unlocked browser', async () => {
      const form = await createCode(api, org, { target: { type: 'form', title: 'Join', fields: [{ name: 'email', label: 'E-mail', type: 'email' }] }, password: 'members!' });
      const post = (cookie?: string) =>
        fetch(`${scan.origin}/${form.short_code}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.7', ...(cookie ? { cookie } : {}) },
          body: 'email=ada%40example.com&consent=yes',
        });
      const lockedPost = await post();
      expect(lockedPost.status).toBe(200);
      expect(await lockedPost.text()).toContain('This code is protected');
      const unlocked = await fetch(`${scan.origin}/${form.short_code}/unlock`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'password=members!' });
      const cookie = unlocked.headers.get('set-cookie')!.split(';')[0];
      const accepted = await post(cookie);
      expect(accepted.status).toBe(200);
      expect(await accepted.text()).not.toContain('This code is protected');
      const capped = await createCode(api, org, { target: { type: 'form', title: 'Join', fields: [{ name: 'email', label: 'E-mail', type: 'email' }] }, expires_at: new Date(Date.now() + 1000).toISOString() });
      await new Promise((r) => setTimeout(r, 1100));
      const late = await fetch(`${scan.origin}/${capped.short_code}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.8' }, body: 'email=ada%40example.com&consent=yes' });
      expect(late.status).toBe(410);
      expect(await late.text()).toContain('This code has expired');
      // By count: once the one scan allowed is counted on the scan host (no worker runs here to store it), posts are refused.
      const once = await createCode(api, org, { target: { type: 'form', title: 'Join', fields: [{ name: 'email', label: 'E-mail', type: 'email' }] }, max_scans: 1 });
      const lastScan = await fetch(`${scan.origin}/${once.short_code}`, { redirect: 'manual', headers: { 'user-agent': IPHONE } });
      expect(lastScan.status).toBe(200);
      const postOnce = (cookie?: string) =>
        fetch(`${scan.origin}/${once.short_code}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.9', ...(cookie ? { cookie } : {}) },
          body: 'email=bob%40example.com&consent=yes',
        });
      await eventually(async () => (await postOnce()).status === 410, 2_000, 'the post refused after the scan limit');
      // ...but the browser whose scan used up the limit still sends the form its page showed (the page's scan pass).
      const pass = lastScan.headers.get('set-cookie')!.split(';')[0];
      expect(pass).toMatch(new RegExp(`^scanlink_pass_${once.short_code}=\\d+\\.`));
      const kept = await postOnce(pass);
      expect(kept.status).toBe(200);
      expect(await kept.text()).toContain('Thank you');
      // A pass of another code, or a forged one, does not.
      expect((await postOnce(pass.replace(`scanlink_pass_${once.short_code}`, 'scanlink_pass_AAAAAAA'))).status).toBe(410);
      expect((await postOnce(`${pass.slice(0, -2)}xx`)).status).toBe(410);
    });

    it("a vCard's .vcf works for the browser whose scan used up the scan limit, and for no other", async () => {
      const card = await createCode(api, org, { target: { type: 'vcard', vcard: { your_name: 'Ada Lovelace' } }, max_scans: 1 });
      const lastScan = await fetch(`${scan.origin}/${card.short_code}`, { redirect: 'manual', headers: { 'user-agent': IPHONE } });
      expect(lastScan.status).toBe(200);
      const pass = lastScan.headers.get('set-cookie')!.split(';')[0];
      const vcf = await fetch(`${scan.origin}/${card.short_code}.vcf`, { headers: { 'user-agent': IPHONE, cookie: pass } });
      expect(vcf.status).toBe(200);
      expect(await vcf.text()).toContain('FN:Ada Lovelace');
      expect((await fetch(`${scan.origin}/${card.short_code}.vcf`, { headers: { 'user-agent': IPHONE } })).status).toBe(410);
      // The next scan is expired, with or without the pass, and gives none.
      const next = await fetch(`${scan.origin}/${card.short_code}`, { redirect: 'manual', headers: { 'user-agent': IPHONE, cookie: pass } });
      expect(next.status).toBe(410);
      expect(next.headers.get('set-cookie')).toBeNull();
    });

    it('10 wrong passwords a minute per code and address → 429 page', async () => {
      const c = await createCode(api, org, { target: { type: 'url', destination: 'https://secret.example/' }, password: 'letmein!' });
      const unlock = (password: string, ip = '203.0.113.9') =>
        fetch(`${scan.origin}/${c.short_code}/unlock`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip }, body: `password=${encodeURIComponent(password)}` });
      for (let i = 0; i < 10; i++) {
        const wrong = await unlock(`nope${i}`);
        // The password page again (it always answers 200), with the error and no unlock cookie.
        expect([wrong.status, wrong.headers.get('set-cookie')]).toEqual([200, null]);
        expect(await wrong.text()).toContain('The password is not right.');
      }
      const limited = await unlock('letmein!');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await unlock('letmein!', '203.0.113.10')).status).toBe(302);
    });
  });
});
