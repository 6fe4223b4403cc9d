import Redis from 'ioredis';
import { parseScanEntry } from '../../src/modules/analytics/scan-entry';
import { DomainHostCache } from '../../src/modules/domains/domain-host-cache';
import { purgeTrash } from '../../src/modules/qr-codes/qr-lifecycle';
import { ScanBuffer } from '../../src/modules/scan/scan-buffer';
import { SCAN_STREAM } from '../../src/modules/scan/scan-contract';
import { TestDnsServer } from '../setup/dns-server';
import { createCode, createOrg, db, eventually, http, isolatedRedisUrl, startApi, startScan, TestApp, TestOrg } from '../setup/app';
import { pendingDomain, requestWithHost, TestDomain, uniqueHostname, verifiedDomain } from '../setup/domains';

/**
 * The scan process routes by `Host`: the default scan host (SCAN_BASE_URL's host; every local name when that is
 * local, as in these tests) or a verified custom domain; any other host gets the 404 page and counts nothing.
 */
describe('scan host routing by Host (custom domains)', () => {
  // A Redis database of its own, so the scan stream this file reads is not consumed by another file's worker.
  const REDIS_URL = isolatedRedisUrl(5);
  let dns: TestDnsServer;
  let api: TestApp;
  let scan: TestApp;
  let redis: Redis;
  let orgA: TestOrg;
  let orgB: TestOrg;
  let domainA: TestDomain;
  let domainB: TestDomain;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    await redis.del(SCAN_STREAM);
    dns = await new TestDnsServer().start();
    [api, scan] = await Promise.all([startApi({ DOMAIN_DNS_SERVERS: dns.address }), startScan({ REDIS_URL })]);
    [orgA, orgB] = await Promise.all([createOrg(api, { plan: 'pro' }), createOrg(api, { plan: 'pro' })]);
    domainA = await verifiedDomain(api, dns, orgA, uniqueHostname('a'));
    domainB = await verifiedDomain(api, dns, orgB, uniqueHostname('b'));
    // Every scan process reloads its host map when a domain is verified (pub/sub).
    await eventually(async () => scan.app.get(DomainHostCache).siteOf(domainB.hostname) === domainB.id, 10_000, 'the scan host to learn the domains');
  });
  afterAll(async () => {
    await Promise.all([api?.close(), scan?.close()]);
    await dns.stop();
    redis?.disconnect();
  });

  const url = (n: string) => ({ type: 'url', destination: `https://example.com/${n}` });
  const get = (path: string, host: string, method = 'GET') => requestWithHost(scan.origin, method, path, host);
  const defaultHost = () => new URL(scan.origin).host;
  /** Scan records queued for a code (the buffer flushed to the stream first). */
  const queuedFor = async (id: string) => {
    await scan.app.get(ScanBuffer).flush();
    const entries = await redis.xrange(SCAN_STREAM, '-', '+');
    return entries.flatMap(([, fields]) => parseScanEntry(fields)!.records).filter((r) => r.qr_code_id === id);
  };

  it('answers a code on its own domain only, and default-host codes only on the default host', async () => {
    const onA = await createCode(api, orgA, { target: url('on-a'), domain_id: domainA.id });
    const onDefault = await createCode(api, orgA, { target: url('default'), domain_id: null });

    const ok = await get(`/${onA.short_code}`, domainA.hostname);
    expect(ok.status).toBe(302);
    expect(ok.headers.location).toBe('https://example.com/on-a');
    // Case, a port and a trailing dot do not change the host.
    for (const host of [`${domainA.hostname.toUpperCase()}:443`, `${domainA.hostname}.`]) {
      expect((await get(`/${onA.short_code}`, host)).headers.location).toBe('https://example.com/on-a');
    }
    for (const host of [defaultHost(), `localhost:${new URL(scan.origin).port}`, domainB.hostname]) {
      const miss = await get(`/${onA.short_code}`, host);
      expect(miss.status).toBe(404);
      expect(miss.headers['content-type']).toMatch(/^text\/html/);
    }
    expect((await get(`/${onDefault.short_code}`, defaultHost())).headers.location).toBe('https://example.com/default');
    expect((await get(`/${onDefault.short_code}`, domainA.hostname)).status).toBe(404);
  });

  it('serves the same short code for two workspaces on their two domains, each only on its own host', async () => {
    const a = await createCode(api, orgA, { target: url('workspace-a'), domain_id: domainA.id });
    const b = await createCode(api, orgB, { target: url('workspace-b'), domain_id: domainB.id });
    // Short codes are unique per domain: B's code takes A's short code (never scanned yet, so nothing is cached).
    await db(api).execute('update qr_codes set short_code = ? where id = ?', [a.short_code, b.id]);
    const path = `/${a.short_code}`;
    expect((await get(path, domainA.hostname)).headers.location).toBe('https://example.com/workspace-a');
    expect((await get(path, domainB.hostname)).headers.location).toBe('https://example.com/workspace-b');
    expect((await get(path, defaultHost())).status).toBe(404);
    // Each scan counts for the code of its host.
    expect((await queuedFor(a.id)).map((r) => r.organization_id)).toEqual([orgA.organizationId]);
    expect((await queuedFor(b.id)).map((r) => r.organization_id)).toEqual([orgB.organizationId]);
    // An edit reaches that host's code at once, and only that one (cache entries carry the domain).
    const patched = await http(api.origin, 'PATCH', `/v1/qr-codes/${b.id}`, { key: orgB.apiKey, body: { target: { destination: 'https://example.com/b-v2' } } });
    expect(patched.status).toBe(200);
    await eventually(async () => (await get(path, domainB.hostname)).headers.location === 'https://example.com/b-v2', 10_000, 'the edit on domain B');
    expect((await get(path, domainA.hostname)).headers.location).toBe('https://example.com/workspace-a');
  });

  it('answers any other host with the 404 page and counts nothing', async () => {
    const code = await createCode(api, orgA, { target: url('counted-only-here'), domain_id: domainA.id });
    const pending = await pendingDomain(api, orgA);
    for (const host of ['unknown.example', pending.hostname, `x.${domainA.hostname}`, '']) {
      for (const method of ['GET', 'HEAD']) {
        const res = await get(`/${code.short_code}`, host, method);
        expect(res.status).toBe(404);
        if (method === 'GET') expect(res.body).toMatch(/<html/i);
      }
    }
    expect(await queuedFor(code.id)).toHaveLength(0);
    expect((await get(`/${code.short_code}`, domainA.hostname)).status).toBe(302);
    expect(await queuedFor(code.id)).toHaveLength(1);
  });

  it('stops serving a domain that loses its verification or is deleted', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const domain = await verifiedDomain(api, dns, org);
    const code = await createCode(api, org, { target: url('soon-gone'), domain_id: domain.id });
    await eventually(async () => (await get(`/${code.short_code}`, domain.hostname)).status === 302, 10_000, 'the new domain to serve');
    // Verification withdrawn (by an operator, in the database): gone from the map at the next reload.
    await db(api).execute(`update domains set status = 'failed' where id = ?`, [domain.id]);
    await scan.app.get(DomainHostCache).refresh();
    expect((await get(`/${code.short_code}`, domain.hostname)).status).toBe(404);
    await db(api).execute(`update domains set status = 'verified' where id = ?`, [domain.id]);
    await scan.app.get(DomainHostCache).refresh();
    expect((await get(`/${code.short_code}`, domain.hostname)).status).toBe(302);
    // Deleted (its code purged first): every scan process drops the host on the API's message.
    await http(api.origin, 'DELETE', `/v1/qr-codes/${code.id}`, { key: org.apiKey });
    await purgeTrash(db(api), { organizationId: org.organizationId });
    expect((await http(api.origin, 'DELETE', `/v1/domains/${domain.id}`, { key: org.apiKey })).status).toBe(200);
    await eventually(async () => scan.app.get(DomainHostCache).siteOf(domain.hostname) === undefined, 10_000, 'the deleted domain to leave the map');
    expect((await get(`/${code.short_code}`, domain.hostname)).status).toBe(404);
  });

  it('takes lead-form posts on the form\'s own host only', async () => {
    const form = await createCode(api, orgA, {
      target: { type: 'form', title: 'Brochure', fields: [{ name: 'email', label: 'E-mail', type: 'email', required: true }], consent_text: 'I agree.' },
      domain_id: domainA.id,
    });
    const post = (host: string) =>
      requestWithHost(scan.origin, 'POST', `/${form.short_code}`, host, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '81.2.69.160' },
        body: 'email=ada%40example.com',
      });
    // Found on its host (refused for the missing consent, the form shown again); unknown elsewhere.
    const own = await post(domainA.hostname);
    expect(own.status).toBe(400);
    expect(own.body).toContain('Brochure');
    expect((await post(defaultHost())).status).toBe(404);
    expect((await post('unknown.example')).status).toBe(404);
  });
});
