import Redis from 'ioredis';
import { parseScanEntry } from '../../src/modules/analytics/scan-entry';
import { siteKey } from '../../src/modules/domains/scan-site';
import { ScanBuffer } from '../../src/modules/scan/scan-buffer';
import { SCAN_CODE_KEY_PREFIX, SCAN_STREAM, type ScanRecord } from '../../src/modules/scan/scan-contract';
import { createCode, createOrg, db, eventually, http, isolatedRedisUrl, startApi, startScan, TestApp, TestOrg } from '../setup/app';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const BOT = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const CLIENT_IP = '81.2.69.142';

/**
 * The scan host's hot path against real Postgres and Redis. The scan processes use their own Redis database so that
 * the stream this file reads is not consumed by a worker another test file starts.
 */
describe('scan host: GET /{short_code}', () => {
  const REDIS_URL = isolatedRedisUrl(11);
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    await redis.del(SCAN_STREAM);
    api = await startApi();
    scan = await startScan({ REDIS_URL });
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await scan?.close();
    await api?.close();
    redis?.disconnect();
  });

  const code = (target: Record<string, unknown>, extra: Record<string, unknown> = {}) => createCode(api, org, { target, ...extra });
  const scanOf = (origin: string, path: string, opts: { method?: string; ua?: string | null; headers?: Record<string, string> } = {}) =>
    fetch(`${origin}${path}`, {
      method: opts.method ?? 'GET',
      redirect: 'manual',
      headers: { ...(opts.ua === null ? {} : { 'user-agent': opts.ua ?? DESKTOP }), ...(opts.headers ?? {}) },
    });
  const get = (path: string, opts: { method?: string; ua?: string | null; headers?: Record<string, string> } = {}) => scanOf(scan.origin, path, opts);
  const locationOf = async (path: string, ua = DESKTOP) => {
    const res = await get(path, { ua });
    expect(res.status).toBe(302);
    return res.headers.get('location');
  };
  const patch = async (id: string, body: Record<string, unknown>) => {
    const res = await http(api.origin, 'PATCH', `/v1/qr-codes/${id}`, { key: org.apiKey, body });
    expect(res.status).toBe(200);
  };

  /** Every ScanRecord queued in the stream, decoded as the worker decodes it (every record well-formed). */
  const streamRecords = async (): Promise<{ raw: string; records: ScanRecord[] }> => {
    const entries = await redis.xrange(SCAN_STREAM, '-', '+');
    const raw = entries.map(([, fields]) => fields.join(' ')).join('\n');
    const records = entries.flatMap(([, fields]) => {
      const parsed = parseScanEntry(fields);
      expect(parsed?.invalid).toBe(0);
      return parsed!.records;
    });
    return { raw, records };
  };
  const queuedFor = async (app: TestApp, id: string) => {
    await app.app.get(ScanBuffer).flush();
    return (await streamRecords()).records.filter((r) => r.qr_code_id === id);
  };

  describe('redirects', () => {
    it('sends a url code to its destination with UTM merged into the existing query, not cacheable', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/landing?ref=qr&utm_source=old', utm: { source: 'print', campaign: 'spring sale' } });
      const res = await get(`/${c.short_code}`);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://example.com/landing?ref=qr&utm_source=print&utm_campaign=spring+sale');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
      expect(res.headers.get('scanlink-version')).toBe('2026-02-08');
    });

    it('keeps the rest of the destination query exactly as written', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/r?ids=1,2&q=a%20b&flag#top', utm: { campaign: 'c' } });
      expect(await locationOf(`/${c.short_code}`)).toBe('https://example.com/r?ids=1,2&q=a%20b&flag&utm_campaign=c#top');
    });

    it('ignores the query string of the scan URL', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/q' });
      expect(await locationOf(`/${c.short_code}?utm_source=x&foo=bar`)).toBe('https://example.com/q');
    });

    it('redirects link types (youtube) like url', async () => {
      const c = await code({ type: 'youtube', destination: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', utm: { medium: 'qr' } });
      expect(await locationOf(`/${c.short_code}`)).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ&utm_medium=qr');
    });

    it('sends a location code to the chosen map app (Google Maps by default)', async () => {
      const google = await code({ type: 'location', lat: 48.8584, lng: 2.2945 });
      const apple = await code({ type: 'location', lat: 48.8584, lng: 2.2945, label: 'Eiffel Tower', map_app: 'apple' });
      const waze = await code({ type: 'location', lat: -33.8568, lng: 151.2153, map_app: 'waze' });
      expect(await locationOf(`/${google.short_code}`)).toBe('https://www.google.com/maps/search/?api=1&query=48.8584,2.2945');
      expect(await locationOf(`/${apple.short_code}`)).toBe('https://maps.apple.com/?ll=48.8584,2.2945&q=Eiffel%20Tower');
      expect(await locationOf(`/${waze.short_code}`)).toBe('https://waze.com/ul?ll=-33.8568,151.2153&navigate=yes');
    });

    it('sends whatsapp codes to wa.me with the message, or to the stored link', async () => {
      const chat = await code({ type: 'whatsapp', phone: '+1 555 123 4567', message: 'Hello there & welcome' });
      const link = await code({ type: 'whatsapp', destination: 'https://wa.me/15551234567?text=hi' });
      expect(await locationOf(`/${chat.short_code}`)).toBe('https://wa.me/15551234567?text=Hello%20there%20%26%20welcome');
      expect(await locationOf(`/${link.short_code}`)).toBe('https://wa.me/15551234567?text=hi');
    });

    it('sends telegram codes to the stored t.me link', async () => {
      const c = await code({ type: 'telegram', destination: '@scanlink_news' });
      expect(await locationOf(`/${c.short_code}`)).toBe('https://t.me/scanlink_news');
    });

    it('picks the app store by user agent and shows the hosted page to other devices', async () => {
      const c = await code({ type: 'appstores', ios_url: 'https://apps.apple.com/app/id123456789', android_url: 'https://play.google.com/store/apps/details?id=com.example' });
      expect(await locationOf(`/${c.short_code}`, IPHONE)).toBe('https://apps.apple.com/app/id123456789');
      expect(await locationOf(`/${c.short_code}`, ANDROID)).toBe('https://play.google.com/store/apps/details?id=com.example');
      const desktop = await get(`/${c.short_code}`);
      expect(desktop.status).toBe(200);
      expect(desktop.headers.get('content-type')).toMatch(/^text\/html/);
      const iosOnly = await code({ type: 'appstores', ios_url: 'https://apps.apple.com/app/id42' });
      expect((await get(`/${iosOnly.short_code}`, { ua: ANDROID })).status).toBe(200);
    });
  });

  describe('hosted pages', () => {
    it.each([
      ['text', { type: 'text', text: 'Hello from a poster' }],
      ['wifi', { type: 'wifi', ssid: 'Cafe', password: 'espresso42', encryption: 'WPA' }],
      ['vcard', { type: 'vcard', vcard: { your_name: 'Ada Lovelace', email: 'ada@example.com' } }],
      ['event', { type: 'event', title: 'Launch', start: '2030-05-01T18:00:00Z', end: '2030-05-01T20:00:00Z' }],
      ['email', { type: 'email', email: 'hello@example.com', subject: 'Hi' }],
      ['sms', { type: 'sms', phone: '+15551234567', message: 'Hi' }],
      ['review', { type: 'review', review_page: { title: 'Rate us', links: [{ platform: 'google', url: 'https://g.page/r/example' }] } }],
      ['linkpage', { type: 'linkpage', title: 'Our links', links: [{ title: 'Site', url: 'https://example.com' }] }],
      ['menupage', { type: 'menupage', title: 'Menu', sections: [{ name: 'Drinks', items: [{ name: 'Tea', price: '2.50' }] }] }],
      ['form', { type: 'form', title: 'Contact', fields: [{ name: 'email', label: 'E-mail', type: 'email', required: true }] }],
    ])('answers a %s code with its page', async (_type, target) => {
      const c = await code(target);
      const res = await get(`/${c.short_code}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('request-id')).toMatch(/^req_/);
      expect(await res.text()).toMatch(/^<!doctype html>/i);
    });

    it('serves .vcf for vcard codes and .ics for event codes, 404 for any other combination', async () => {
      const card = await code({ type: 'vcard', vcard: { your_name: 'Ada Lovelace', phone_mobile: '+15551234567' } });
      const event = await code({ type: 'event', title: 'Launch', start: '2030-05-01T18:00:00Z', end: '2030-05-01T20:00:00Z' });
      const link = await code({ type: 'url', destination: 'https://example.com/' });
      const vcf = await get(`/${card.short_code}.vcf`);
      expect(vcf.status).toBe(200);
      expect(vcf.headers.get('content-type')).toMatch(/vcard/);
      expect(await vcf.text()).toContain('BEGIN:VCARD');
      const ics = await get(`/${event.short_code}.ics`);
      expect(ics.status).toBe(200);
      expect(ics.headers.get('content-type')).toMatch(/calendar/);
      expect(await ics.text()).toContain('BEGIN:VCALENDAR');
      for (const path of [`/${card.short_code}.ics`, `/${event.short_code}.vcf`, `/${link.short_code}.vcf`]) {
        const res = await get(path);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      }
    });
  });

  describe('codes that do not answer', () => {
    it('answers 404 for an unknown short code and for a static code', async () => {
      expect((await get('/Zz9Zz9Z')).status).toBe(404);
      const fixed = await code({ type: 'url', destination: 'https://example.com/static' }, { type: 'static' });
      const res = await get(`/${fixed.short_code}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    });

    it('answers 404 once a code is trashed and redirects again after restore', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/trash' });
      expect(await locationOf(`/${c.short_code}`)).toBe('https://example.com/trash');
      expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${c.id}`, { key: org.apiKey })).status).toBeLessThan(300);
      await eventually(async () => (await get(`/${c.short_code}`)).status === 404, 3_000, '404 after trashing');
      expect((await http(api.origin, 'POST', `/v1/qr-codes/${c.id}/restore`, { key: org.apiKey })).status).toBeLessThan(300);
      await eventually(async () => (await get(`/${c.short_code}`)).status === 302, 3_000, 'redirect after restore');
    });

    it('answers 410 for an inactive code and redirects again once reactivated', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/off' });
      expect((await get(`/${c.short_code}`)).status).toBe(302);
      await patch(c.id, { is_active: false });
      await eventually(async () => (await get(`/${c.short_code}`)).status === 410, 3_000, '410 after deactivation');
      const gone = await get(`/${c.short_code}`);
      expect(gone.headers.get('content-type')).toMatch(/^text\/html/);
      await patch(c.id, { is_active: true });
      await eventually(async () => (await get(`/${c.short_code}`)).status === 302, 3_000, 'redirect after reactivation');
    });

    it('answers 410 for a paused code', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/paused' });
      await db(api).execute(`update qr_codes set status = 'paused', deleted_at = now() where id = ?`, [c.id]);
      expect((await get(`/${c.short_code}`)).status).toBe(410);
    });

    it('answers a mistyped one-segment path with the 404 page, and a trailing slash like the code itself', async () => {
      for (const path of ['/abc', '/ZZZZZZZZ', '/', '/robots.txt?x=1']) {
        const res = await get(path);
        expect(res.status).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await res.text()).toContain('This code does not exist');
      }
      const c = await code({ type: 'url', destination: 'https://example.com/slash' });
      expect(await locationOf(`/${c.short_code}/`)).toBe('https://example.com/slash');
      expect((await get('/health/')).headers.get('content-type')).toMatch(/json/);
      for (const path of ['/images', '/images/']) expect((await get(path)).headers.get('content-type')).toMatch(/json/);
    });

    it('leaves every other request to Nest', async () => {
      const health = await get('/health');
      expect(health.status).toBe(200);
      expect(health.headers.get('request-id')).toMatch(/^req_/);
      expect((await get('/Zz9Zz9Z/extra')).status).toBe(404);
      expect((await get('/Zz9Zz9Z', { method: 'DELETE' })).status).toBe(404);
    });
  });

  describe('counting', () => {
    it('queues one record per counted GET with derived facts only, and the client IP appears nowhere', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/count' });
      const card = await code({ type: 'vcard', vcard: { your_name: 'Ada Lovelace' } });
      const before = await get(`/${c.short_code}`, {
        headers: { 'x-forwarded-for': CLIENT_IP, referer: 'https://News.Example.org/story?id=1', 'accept-language': 'en-GB,en;q=0.9' },
      });
      expect(before.status).toBe(302);
      expect((await get(`/${c.short_code}`, { ua: IPHONE })).status).toBe(302);
      // Answered, never counted: HEAD, a link-preview bot, no user agent, a .vcf download.
      const head = await get(`/${c.short_code}`, { method: 'HEAD' });
      expect(head.status).toBe(302);
      expect(head.headers.get('location')).toBe('https://example.com/count');
      expect((await get(`/${c.short_code}`, { ua: BOT })).status).toBe(302);
      expect((await get(`/${c.short_code}`, { ua: null })).status).toBe(302);
      expect((await get(`/${card.short_code}.vcf`)).status).toBe(200);
      expect((await get(`/${card.short_code}`, { method: 'HEAD' })).status).toBe(200);

      const records = await queuedFor(scan, c.id);
      expect(records).toHaveLength(2);
      const [desktop, iphone] = records.sort((a, b) => (a.device === 'Desktop' ? -1 : b.device === 'Desktop' ? 1 : 0));
      expect(desktop).toEqual({
        id: expect.stringMatching(/^scan_[0-9A-Za-z]{20}$/),
        qr_code_id: c.id,
        organization_id: org.organizationId,
        scanned_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        country: 'GB',
        city: expect.anything(),
        device: 'Desktop',
        os: 'Windows',
        browser: 'Chrome',
        referrer: 'news.example.org',
        language: 'en',
        // The visitor of the day: an HMAC under the day's salt (visitor-salt.ts), never the address.
        visitor: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      });
      expect(iphone).toMatchObject({ device: 'Mobile', os: 'iOS', country: null, referrer: null, language: null });
      expect(iphone.visitor).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(iphone.visitor).not.toBe(desktop.visitor);
      expect(await queuedFor(scan, card.id)).toEqual([]);
      expect((await streamRecords()).raw).not.toContain(CLIENT_IP);
    });

    it('counts page scans but not 404 or 410 answers', async () => {
      const page = await code({ type: 'text', text: 'Counted page' });
      const off = await code({ type: 'url', destination: 'https://example.com/off2' });
      await patch(off.id, { is_active: false });
      expect((await get(`/${page.short_code}`)).status).toBe(200);
      expect((await get(`/${off.short_code}`)).status).toBe(410);
      expect(await queuedFor(scan, page.id)).toHaveLength(1);
      expect(await queuedFor(scan, off.id)).toHaveLength(0);
    });
  });

  describe('code cache', () => {
    it('answers from its cache without reading the row again, and keeps the code in Redis', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/cached' });
      // The create's own invalidation may reach the scan process while the first scan fills the cache (that fill is
      // then answered from but not kept), so scan until the copy is there.
      const shared = await eventually(
        async () => {
          expect(await locationOf(`/${c.short_code}`)).toBe('https://example.com/cached');
          return (await redis.get(SCAN_CODE_KEY_PREFIX + siteKey(null, c.short_code))) ?? undefined;
        },
        3_000,
        'Redis copy',
      );
      expect(JSON.parse(shared)).toEqual({
        id: c.id,
        organizationId: org.organizationId,
        shortCode: c.short_code,
        name: expect.any(String),
        type: 'url',
        target: { destination: 'https://example.com/cached', utm: null },
        status: 'live',
        isActive: true,
        scanCount: 0,
        expiresAt: null,
        maxScans: null,
        expiredUrl: null,
        passwordTag: null,
      });
      // Changed behind the API's back (no invalidation): the scan host does not see it.
      await db(api).execute(`update qr_codes set target = '{"destination":"https://example.com/sneaky","utm":null}' where id = ?`, [c.id]);
      expect(await locationOf(`/${c.short_code}`)).toBe('https://example.com/cached');
    });

    it('serves a new destination on the next scan in every scan process', async () => {
      const second = await startScan({ REDIS_URL });
      try {
        const c = await code({ type: 'url', destination: 'https://example.com/v1' });
        expect(await locationOf(`/${c.short_code}`)).toBe('https://example.com/v1');
        const res = await scanOf(second.origin, `/${c.short_code}`);
        expect(res.headers.get('location')).toBe('https://example.com/v1');

        await patch(c.id, { target: { destination: 'https://example.com/v2' } });
        for (const origin of [scan.origin, second.origin]) {
          await eventually(
            async () => (await scanOf(origin, `/${c.short_code}`)).headers.get('location') === 'https://example.com/v2',
            2_000,
            `new destination on ${origin}`,
          );
        }
      } finally {
        await second.close();
      }
    });

    it('forgets an unknown code once a code with that short code exists', async () => {
      const c = await code({ type: 'url', destination: 'https://example.com/late' });
      const [row] = await db(api).execute<{ short_code: string }[]>(`select short_code from qr_codes where id = ?`, [c.id]);
      // Hide the code, let the scan host remember the short code as unknown, then bring it back with an update.
      await db(api).execute(`update qr_codes set short_code = 'hidden_' || short_code where id = ?`, [c.id]);
      expect((await get(`/${row.short_code}`)).status).toBe(404);
      await db(api).execute(`update qr_codes set short_code = ? where id = ?`, [row.short_code, c.id]);
      await patch(c.id, { name: 'renamed' });
      await eventually(async () => (await get(`/${row.short_code}`)).status === 302, 2_000, 'redirect after invalidation');
    });
  });

  describe('shutdown', () => {
    it('queues buffered scans when the process closes', async () => {
      const slow = await startScan({ REDIS_URL, SCAN_FLUSH_INTERVAL_MS: '60000' });
      const c = await code({ type: 'url', destination: 'https://example.com/closing' });
      for (let i = 0; i < 3; i++) expect((await scanOf(slow.origin, `/${c.short_code}`)).status).toBe(302);
      expect((await streamRecords()).records.filter((r) => r.qr_code_id === c.id)).toHaveLength(0);
      await slow.close();
      expect((await streamRecords()).records.filter((r) => r.qr_code_id === c.id)).toHaveLength(3);
    });
  });
});
