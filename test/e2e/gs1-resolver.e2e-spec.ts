import Ajv from 'ajv';
import Redis from 'ioredis';
import linksetSchema from '../../src/modules/gs1/data/gs1-linkset-schema.json';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { runResolverConformance, type Probe } from '../../src/modules/gs1/testing/resolver-conformance';
import { parseScanEntry } from '../../src/modules/analytics/scan-entry';
import { ScanBuffer } from '../../src/modules/scan/scan-buffer';
import { SCAN_STREAM } from '../../src/modules/scan/scan-contract';
import { createCode, createOrg, eventually, http, isolatedRedisUrl, startApi, startScan, TestApp, TestOrg } from '../setup/app';

const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const voc = (name: string) => `https://gs1.org/voc/${name}`;

/**
 * The scan host as a GS1-Conformant Resolver for dynamic GS1 codes, over HTTP against real Postgres and Redis: GS1's
 * resolver test suite (its fail-level checks, ported in gs1/testing/resolver-conformance.ts) and GS1's linkset schema.
 */
describe('scan host: GS1 Digital Link resolver', () => {
  const REDIS_URL = isolatedRedisUrl(15);
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;
  let redis: Redis;
  let scanOrigin: string;
  const validateLinkset = new Ajv({ strict: false }).compile(linksetSchema);

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    await redis.del(SCAN_STREAM);
    api = await startApi();
    scan = await startScan({ REDIS_URL });
    org = await createOrg(api, { plan: 'pro' });
    scanOrigin = new URL(api.config.scanBaseUrl).origin;
  });
  afterAll(async () => {
    await scan?.close();
    await api?.close();
    redis?.disconnect();
  });

  /** A request to the scan host for a URI on the configured scan origin. */
  const send = (uri: string, opts: { method?: string; headers?: Record<string, string> } = {}) =>
    fetch(uri.replace(scanOrigin, scan.origin), { method: opts.method ?? 'GET', redirect: 'manual', headers: { 'user-agent': DESKTOP, ...(opts.headers ?? {}) } });
  const probe: Probe = async (method, url, headers = {}) => {
    const res = await send(url, { method, headers });
    const text = await res.text();
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => (out[k] = v));
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    return { status: res.status, headers: out, body };
  };
  const gs1Code = (gtin: string, extra: Record<string, unknown> = {}) =>
    createCode(api, org, { type: 'gs1', primary_key: { ai: '01', value: gtin }, destination: 'https://brand.example/default', ...extra });
  const queuedFor = async (id: string) => {
    await scan.app.get(ScanBuffer).flush();
    const entries = await redis.xrange(SCAN_STREAM, '-', '+');
    return entries.flatMap(([, fields]) => parseScanEntry(fields)?.records ?? []).filter((r) => r.qr_code_id === id);
  };

  /** A product with links in two languages, two indistinguishable links of one type, an override and a deeper code. */
  async function product(): Promise<{ gtin: string; base: string; code: { id: string }; deeper: { id: string } }> {
    const gtin = randomGtin();
    const code = await gs1Code(gtin, {
      name: 'Crew neck T-shirt',
      links: [
        { linkType: 'gs1:pip', href: 'https://brand.example/en/pip', hreflang: ['en'] },
        { linkType: 'gs1:pip', href: 'https://brand.example/fr/pip', hreflang: ['fr'] },
        { linkType: 'gs1:certificationInfo', href: 'https://cert.example/1', title: 'Certificate' },
        { linkType: 'gs1:certificationInfo', href: 'https://cert.example/2', title: 'Certificate' },
        { linkType: 'gs1:instructions', href: 'https://brand.example/care', title: 'Care' },
      ],
      overrides: [{ path: '21/1234', href: 'https://brand.example/serial/1234' }],
    });
    const deeper = await gs1Code(gtin, {
      name: 'Serial 12345',
      qualifiers: [{ ai: '21', value: '12345' }],
      destination: 'https://brand.example/serial/12345',
      links: [{ linkType: 'gs1:dpp', href: 'https://dpp.example/12345' }],
    });
    return { gtin, base: `${scanOrigin}/01/${gtin}`, code, deeper };
  }

  it("passes every fail-level check of GS1's resolver test suite, at every level", async () => {
    const { base } = await product();
    for (const dl of [base, `${base}/21/12345`, `${base}/21/1234`, `${base}/21/999`]) {
      const results = await runResolverConformance(probe, dl, (body) => validateLinkset(body) as boolean);
      expect({ dl, failed: results.filter((r) => !r.passed) }).toEqual({ dl, failed: [] });
      const ids = results.map((r) => r.id);
      for (const id of ['rdFile', 'corsCheck', 'methodsCheck', 'reportWith400', 'basicWalkUp', 'ltLinksetNoRedirect', 'validLinkset', 'declaredContentType', 'defaultTarget', 'specificLinkTypeNotFound']) {
        expect(ids).toContain(id);
      }
    }
  });

  it('redirects 307 to the default link with the whole query passed on, with Link, Vary and CORS', async () => {
    const { base } = await product();
    const res = await send(`${base}?17=271231&foo=bar`);
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe('https://brand.example/default?17=271231&foo=bar');
    expect(res.headers.get('link')).toBe(`<${base}?linkType=linkset>; rel="linkset"; type="application/linkset+json"`);
    expect(res.headers.get('vary')).toBe('Accept, Accept-Language');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    expect((await send(`${base}/`)).headers.get('location')).toBe('https://brand.example/default');
  });

  it('picks links by linkType and Accept-Language, answers 300 for indistinguishable links and 404 for a missing type', async () => {
    const { base } = await product();
    const fr = await send(`${base}?linkType=gs1:pip`, { headers: { 'accept-language': 'fr-FR,fr;q=0.9' } });
    expect(fr.status).toBe(307);
    expect(fr.headers.get('location')).toBe('https://brand.example/fr/pip?linkType=gs1:pip');
    expect((await send(`${base}?linkType=${encodeURIComponent(voc('instructions'))}`)).headers.get('location')).toMatch(/^https:\/\/brand\.example\/care\?/);
    const multiple = await send(`${base}?linkType=gs1:certificationInfo`);
    expect(multiple.status).toBe(300);
    expect(multiple.headers.get('content-type')).toMatch(/^application\/linkset\+json/);
    const candidates = (await multiple.json()) as { linkset: Record<string, unknown>[] };
    expect((candidates.linkset[0][voc('certificationInfo')] as unknown[]).length).toBe(2);
    expect((await send(`${base}?linkType=gs1:nosuchlt`)).status).toBe(404);
    expect((await send(`${base}?linkType=gs1:epil`)).status).toBe(404);
  });

  it('serves a linkset covering every level up to the primary key, valid against GS1 schema', async () => {
    const { base } = await product();
    for (const res of [await send(`${base}/21/12345?linkType=linkset`), await send(`${base}/21/12345`, { headers: { accept: 'application/linkset+json' } })]) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/linkset\+json/);
      expect(res.headers.get('link')).toContain('rel="http://www.w3.org/ns/json-ld#context"');
      const body = (await res.json()) as { linkset: Record<string, unknown>[] };
      expect(validateLinkset(body)).toBe(true);
      expect(body.linkset.map((c) => [c.anchor, c.itemDescription])).toEqual(
        expect.arrayContaining([
          [base, 'Crew neck T-shirt'],
          [`${base}/21/12345`, 'Serial 12345'],
        ]),
      );
      const top = body.linkset.find((c) => c.anchor === base)!;
      expect(top[voc('defaultLink')]).toEqual([{ href: 'https://brand.example/default', title: 'Default link' }]);
    }
  });

  it('walks up from unknown lower levels, uses the most specific override, and answers 400 for invalid Digital Links', async () => {
    const { base } = await product();
    expect((await send(`${base}/10/UNKNOWN`)).headers.get('location')).toBe('https://brand.example/default');
    expect((await send(`${base}/21/1234`)).headers.get('location')).toBe('https://brand.example/serial/1234');
    expect((await send(`${base}/21/12345`)).headers.get('location')).toBe('https://brand.example/serial/12345');
    const wrongCheckDigit = `${base.slice(0, -1)}${(Number(base.slice(-1)) + 1) % 10}`;
    for (const path of [`${base}/foo`, `${base}/89/ABC`, wrongCheckDigit, `${base}/21/1/10/A`]) {
      const res = await send(path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    }
    expect((await send(`${scanOrigin}/01/${randomGtin()}`)).status).toBe(404);
  });

  it('answers OPTIONS and HEAD, and serves /.well-known/gs1resolver', async () => {
    const { base } = await product();
    const options = await send(base, { method: 'OPTIONS', headers: { origin: 'https://ref.gs1.org', 'access-control-request-method': 'GET' } });
    expect(options.status).toBe(204);
    expect(options.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    const head = await send(`${base}?linkType=linkset`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const wk = await send(`${scanOrigin}/.well-known/gs1resolver`);
    expect(wk.status).toBe(200);
    expect(wk.headers.get('access-control-allow-origin')).toBe('*');
    expect(await wk.json()).toMatchObject({ resolverRoot: scanOrigin, supportedPrimaryKeys: expect.arrayContaining(['01', '414', '00']), linkTypeDefaultCanBeLinkset: false });
  });

  it('counts redirects as scans through the scan buffer, never HEAD, linksets or bots', async () => {
    const { base, code, deeper } = await product();
    await send(base);
    await send(`${base}/10/LOT1`);
    await send(`${base}/21/12345`);
    await send(base, { method: 'HEAD' });
    await send(`${base}?linkType=linkset`);
    await send(base, { headers: { 'user-agent': 'facebookexternalhit/1.1' } });
    expect((await queuedFor(code.id)).length).toBe(2);
    expect((await queuedFor(deeper.id)).length).toBe(1);
  });

  it('applies PATCH at once, answers 410 for an inactive code and 404 once trashed', async () => {
    const gtin = randomGtin();
    const code = await gs1Code(gtin);
    const uri = `${scanOrigin}/01/${gtin}`;
    expect((await send(uri)).headers.get('location')).toBe('https://brand.example/default');
    const patched = await http(api.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body: { destination: 'https://brand.example/new', links: [{ linkType: 'gs1:pip', href: 'https://brand.example/pip' }] } });
    expect(patched.status).toBe(200);
    // The invalidation reaches the scan process through pub/sub, within moments of the answer.
    const locationOf = async (u: string) => (await send(u)).headers.get('location');
    await eventually(async () => (await locationOf(uri)) === 'https://brand.example/new', 3_000, 'the new default link');
    expect(await locationOf(`${uri}?linkType=gs1:pip`)).toBe('https://brand.example/pip?linkType=gs1:pip');
    await http(api.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body: { is_active: false } });
    await eventually(async () => (await send(uri)).status === 410, 3_000, '410 after deactivation');
    await http(api.origin, 'DELETE', `/v1/qr-codes/${code.id}`, { key: org.apiKey });
    await eventually(async () => (await send(uri)).status === 404, 3_000, '404 after trashing');
  });

  it('answers a repeated request (same URL and headers) from the current code after every edit of an ancestor code', async () => {
    const gtin = randomGtin();
    const code = await gs1Code(gtin, { links: [{ linkType: 'gs1:pip', href: 'https://brand.example/pip-fr', hreflang: ['fr'] }] });
    // A lot without a code of its own: answered from the GTIN's code, read through two cache levels.
    const uri = `${scanOrigin}/01/${gtin}/10/LOT7?linkType=gs1:pip`;
    const headers = { accept: 'text/html', 'accept-language': 'fr-CH, fr;q=0.9' };
    const locationOf = async () => {
      const res = await send(uri, { headers });
      return `${res.status} ${res.headers.get('location')}`;
    };
    for (let i = 0; i < 3; i++) expect(await locationOf()).toBe('307 https://brand.example/pip-fr?linkType=gs1:pip');
    const before = (await queuedFor(code.id)).length;
    expect(before).toBe(3);
    const patch = (body: Record<string, unknown>) => http(api.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body });
    expect((await patch({ links: [{ linkType: 'gs1:pip', href: 'https://brand.example/pip-fr-2', hreflang: ['fr'] }] })).status).toBe(200);
    await eventually(async () => (await locationOf()) === '307 https://brand.example/pip-fr-2?linkType=gs1:pip', 3_000, 'the edited link');
    expect(await locationOf()).toBe('307 https://brand.example/pip-fr-2?linkType=gs1:pip');
    await patch({ is_active: false });
    await eventually(async () => (await locationOf()).startsWith('404 '), 3_000, 'no answer once the only code is paused');
    await patch({ is_active: true });
    await eventually(async () => (await locationOf()) === '307 https://brand.example/pip-fr-2?linkType=gs1:pip', 3_000, 'the link again');
    // Every GET redirect is a scan of the GTIN's code, repeated answers included.
    const redirects = (await queuedFor(code.id)).length;
    expect(redirects).toBeGreaterThanOrEqual(before + 3);
    await locationOf();
    expect((await queuedFor(code.id)).length).toBe(redirects + 1);
  });
});
