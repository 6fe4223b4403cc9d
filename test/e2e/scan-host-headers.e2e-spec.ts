import { connect } from 'node:net';
import { createCode, createOrg, startApi, startScan, TestApp } from '../setup/app';
import { requestWithHost } from '../setup/domains';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';

/** Raw HTTP/1.1 to the scan host (a test must be able to send two Host headers, which no client library does). */
function raw(origin: string, head: string): Promise<{ status: number; text: string }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    let data = '';
    socket.on('data', (c: Buffer) => (data += c.toString('latin1')));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0), text: data }));
    socket.on('error', reject);
  });
}

/** Host handling on the scan host (docs/scan-host.md; issue 25 item 8). */
describe('scan host: Host header handling', () => {
  let api: TestApp;
  let scan: TestApp;
  let shortCode: string;

  beforeAll(async () => {
    [api, scan] = await Promise.all([startApi(), startScan()]);
    const code = await createCode(api, await createOrg(api, { plan: 'pro' }), { target: { type: 'url', destination: 'https://example.com/host' } });
    shortCode = code.short_code;
  });
  afterAll(async () => {
    await Promise.all([scan?.close(), api?.close()]);
  });

  it('answers a normal Host (with or without a port) as before', async () => {
    const host = new URL(scan.origin).host;
    expect((await requestWithHost(scan.origin, 'GET', `/${shortCode}`, host)).status).toBe(302);
    expect((await requestWithHost(scan.origin, 'GET', `/${shortCode}`, 'localhost')).status).toBe(302);
  });

  it('answers 400 to two Host headers instead of routing by the first', async () => {
    const host = new URL(scan.origin).host;
    const res = await raw(scan.origin, `GET /${shortCode} HTTP/1.1\r\nHost: ${host}\r\nHost: go.attacker.example`);
    expect(res.status).toBe(400);
    expect(res.text).not.toMatch(/^Location:/im);
    // Nest's routes on the scan host too.
    expect((await raw(scan.origin, `GET /health/live HTTP/1.1\r\nHost: ${host}\r\nHost: ${host}`)).status).toBe(400);
  });

  it('answers 400 to a malformed port or name, whatever the path (never cached by its raw value)', async () => {
    for (const host of [`localhost:${'9'.repeat(8000)}`, 'localhost:99999', 'localhost:', 'localhost:80x', 'a b.example']) {
      const res = await requestWithHost(scan.origin, 'GET', `/${shortCode}`, host);
      expect(res.status).toBe(400);
      expect(res.headers['request-id']).toMatch(/^req_/);
      expect((await requestWithHost(scan.origin, 'GET', '/01/09506000134352', host)).status).toBe(400);
    }
  });
});

/** Security headers on both hosts (docs/security.md "Security headers"; issue 25 item 11). */
describe('security headers', () => {
  let api: TestApp;
  let scan: TestApp;
  let shortCode: string;
  let pageCode: string;
  let gtin: string;

  beforeAll(async () => {
    [api, scan] = await Promise.all([startApi(), startScan()]);
    const org = await createOrg(api, { plan: 'pro' });
    shortCode = (await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/h' } })).short_code;
    pageCode = (await createCode(api, org, { target: { type: 'text', text: 'A hosted page' } })).short_code;
    gtin = randomGtin();
    await createCode(api, org, { type: 'gs1', primary_key: { ai: '01', value: gtin }, destination: 'https://example.com/p' });
  });
  afterAll(async () => {
    await Promise.all([scan?.close(), api?.close()]);
  });

  const expectBasics = (h: Headers, what: string) => {
    expect([what, h.get('x-content-type-options')]).toEqual([what, 'nosniff']);
    expect([what, h.get('referrer-policy')]).toEqual([what, 'strict-origin-when-cross-origin']);
  };

  it("the api: nosniff and Referrer-Policy on every answer, frame-ancestors 'none' on its HTML, HSTS only over https", async () => {
    for (const path of ['/docs', '/docs/errors']) {
      const res = await fetch(`${api.origin}${path}`, { redirect: 'follow' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expectBasics(res.headers, path);
      await res.arrayBuffer();
    }
    const json = await fetch(`${api.origin}/v1/me`);
    expectBasics(json.headers, '/v1/me 401');
    expect(json.headers.get('strict-transport-security')).toBeNull();
    await json.arrayBuffer();
    // Over https through a trusted proxy (the tests trust loopback).
    const https = await fetch(`${api.origin}/health/live`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(https.headers.get('strict-transport-security')).toBe('max-age=31536000');
    await https.arrayBuffer();
  });

  it('the scan host: nosniff and Referrer-Policy on redirects, hosted and status pages, linksets and its own routes; one Cache-Control on the resolver 400 page', async () => {
    const redirect = await fetch(`${scan.origin}/${shortCode}`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expectBasics(redirect.headers, 'redirect');
    // Hosted and status pages too (only the password page sends no referrer at all: smart-urls.e2e-spec.ts).
    for (const path of [`/${pageCode}`, '/zzzzzzz']) {
      const res = await fetch(`${scan.origin}${path}`);
      expect([path, res.headers.get('content-type')]).toEqual([path, 'text/html; charset=utf-8']);
      expectBasics(res.headers, path);
      expect(await res.text()).toContain('<meta name="referrer" content="strict-origin-when-cross-origin">');
    }
    const linkset = await fetch(`${scan.origin}/01/${gtin}?linkType=linkset`);
    expect(linkset.status).toBe(200);
    expectBasics(linkset.headers, 'linkset');
    await linkset.arrayBuffer();
    const health = await fetch(`${scan.origin}/health/live`);
    expectBasics(health.headers, 'health');
    await health.arrayBuffer();
    const invalid = await raw(scan.origin, `GET /01/${gtin}/foo HTTP/1.1\r\nHost: ${new URL(scan.origin).host}`);
    expect(invalid.status).toBe(400);
    const head = invalid.text.split('\r\n\r\n')[0];
    expect(head.match(/^cache-control:/gim)).toHaveLength(1);
    expect(head).toMatch(/^x-content-type-options: nosniff$/im);
  });
});

/** HSTS on the scan host's hot path (short-code redirects, hosted and status pages, the GS1 resolver) when the scan
 * arrived over https through a trusted proxy (docs/security.md "Security headers"). */
describe('scan host: Strict-Transport-Security over https', () => {
  let api: TestApp;
  let scan: TestApp;
  /** A scan host that trusts no proxy (the product's default), so X-Forwarded-Proto means nothing there. */
  let untrusting: TestApp;
  let shortCode: string;
  let pageCode: string;
  let lockedCode: string;
  let gtin: string;

  beforeAll(async () => {
    [api, scan, untrusting] = await Promise.all([startApi(), startScan(), startScan({ TRUST_PROXY: '' })]);
    const org = await createOrg(api, { plan: 'pro' });
    shortCode = (await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/hsts' } })).short_code;
    pageCode = (await createCode(api, org, { target: { type: 'text', text: 'Hello over https' } })).short_code;
    lockedCode = (await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/locked' }, password: 'hsts test' })).short_code;
    gtin = randomGtin();
    await createCode(api, org, { type: 'gs1', primary_key: { ai: '01', value: gtin }, destination: 'https://example.com/p' });
  });
  afterAll(async () => {
    await Promise.all([scan?.close(), untrusting?.close(), api?.close()]);
  });

  const get = async (origin: string, path: string, proto?: string) => {
    const res = await fetch(`${origin}${path}`, { redirect: 'manual', headers: proto ? { 'x-forwarded-proto': proto } : {} });
    await res.arrayBuffer();
    return { status: res.status, hsts: res.headers.get('strict-transport-security') };
  };

  it('short-code redirects: HSTS when the trusted proxy says https, none over plain http', async () => {
    expect(await get(scan.origin, `/${shortCode}`, 'https')).toEqual({ status: 302, hsts: 'max-age=31536000' });
    expect(await get(scan.origin, `/${shortCode}`)).toEqual({ status: 302, hsts: null });
    expect(await get(scan.origin, `/${shortCode}`, 'http')).toEqual({ status: 302, hsts: null });
    // The nearest proxy's entry (the last) decides, as for Fastify's routes.
    expect(await get(scan.origin, `/${shortCode}`, 'http, https')).toEqual({ status: 302, hsts: 'max-age=31536000' });
    expect(await get(scan.origin, `/${shortCode}`, 'https, http')).toEqual({ status: 302, hsts: null });
  });

  it('hosted pages, the password page, the 404 page and the GS1 resolver carry it over https only', async () => {
    for (const path of [`/${pageCode}`, `/${lockedCode}`, '/zzzzzzz', `/01/${gtin}`]) {
      const https = await get(scan.origin, path, 'https');
      expect([path, https.hsts]).toEqual([path, 'max-age=31536000']);
      // The resolver's answer is memoized after the first request: HSTS is added per request, never kept in the memo.
      const plain = await get(scan.origin, path);
      expect([path, plain.status, plain.hsts]).toEqual([path, https.status, null]);
    }
    expect((await get(scan.origin, `/${lockedCode}`, 'https')).status).toBe(200);
    expect((await get(scan.origin, `/01/${gtin}`, 'https')).status).toBe(307);
  });

  it('ignores X-Forwarded-Proto from a peer that is not a trusted proxy', async () => {
    expect(await get(untrusting.origin, `/${shortCode}`, 'https')).toEqual({ status: 302, hsts: null });
    expect(await get(untrusting.origin, `/01/${gtin}`, 'https')).toEqual({ status: 307, hsts: null });
  });
});
