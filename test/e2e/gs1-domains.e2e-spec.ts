import { DomainHostCache } from '../../src/modules/domains/domain-host-cache';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { closeDecoders, decodeBoth } from '../../src/modules/rendering/testing/qr-decoders';
import { TestDnsServer } from '../setup/dns-server';
import { purgeTrash } from '../../src/modules/qr-codes/qr-lifecycle';
import { createOrg, db, eventually, http, startApi, startScan, TestApp, TestOrg } from '../setup/app';
import { requestWithHost, TestDomain, uniqueHostname, verifiedDomain } from '../setup/domains';

/** Dynamic GS1 codes on verified custom domains: the encoded URI, uniqueness per host, routing by Host. */
describe('GS1 Digital Link codes on custom domains', () => {
  let dns: TestDnsServer;
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;
  let domain: TestDomain;

  beforeAll(async () => {
    dns = await new TestDnsServer().start();
    [api, scan] = await Promise.all([startApi({ DOMAIN_DNS_SERVERS: dns.address }), startScan()]);
    org = await createOrg(api, { plan: 'pro' });
    domain = await verifiedDomain(api, dns, org, uniqueHostname('gs1'));
    await eventually(async () => scan.app.get(DomainHostCache).siteOf(domain.hostname) === domain.id, 10_000, 'the scan host to learn the domain');
  });
  afterAll(async () => {
    await Promise.all([api?.close(), scan?.close()]);
    await dns.stop();
    await closeDecoders();
  });

  const post = (body: Record<string, unknown>) => http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body });
  const gs1 = (gtin: string, extra: Record<string, unknown> = {}) => ({ type: 'gs1', primary_key: { ai: '01', value: gtin }, destination: 'https://brand.example/p', ...extra });
  const get = (path: string, host: string, headers: Record<string, string> = {}) => requestWithHost(scan.origin, 'GET', path, host, { headers });
  const defaultHost = () => new URL(scan.origin).host;

  it('encodes https://<domain>/01/… and resolves only on that Host; the image decodes to it', async () => {
    const gtin = randomGtin();
    const res = await post(gs1(gtin, { domain_id: domain.id }));
    expect(res.status).toBe(201);
    const uri = `https://${domain.hostname}/01/${gtin}`;
    expect(res.body).toMatchObject({ domain_id: domain.id, short_url: uri });
    expect(res.body.target.destination).toBe(uri);
    const png = await fetch(`${api.origin}/v1/qr-codes/${res.body.id}/download?format=png&size=600`, { headers: { authorization: `Bearer ${org.apiKey}` } });
    expect(await decodeBoth(Buffer.from(await png.arrayBuffer()))).toEqual({ zxing: uri, qr: uri });

    const onDomain = await get(`/01/${gtin}`, domain.hostname);
    expect(onDomain.status).toBe(307);
    expect(onDomain.headers.location).toBe('https://brand.example/p');
    expect(onDomain.headers.link).toBe(`<${uri}?linkType=linkset>; rel="linkset"; type="application/linkset+json"`);
    expect((await get(`/01/${gtin}`, defaultHost())).status).toBe(404);
    expect((await get(`/01/${gtin}`, 'unknown-host.example')).status).toBe(404);
    const linkset = JSON.parse((await get(`/01/${gtin}?linkType=linkset`, domain.hostname)).body) as { linkset: { anchor: string }[] };
    expect(linkset.linkset[0].anchor).toBe(uri);
  });

  it('keeps identifiers unique per host: the same GTIN may live on the default host and on the domain', async () => {
    const gtin = randomGtin();
    expect((await post(gs1(gtin, { domain_id: domain.id }))).status).toBe(201);
    expect((await post(gs1(gtin, { domain_id: domain.id }))).body.error).toMatchObject({ code: 'gs1_identifier_taken' });
    const onDefault = await post(gs1(gtin, { domain_id: null }));
    expect(onDefault.status).toBe(201);
    expect(onDefault.body.domain_id).toBeNull();
    expect((await get(`/01/${gtin}`, defaultHost())).status).toBe(307);
  });

  it('keeps an identifier retired on a host name after the domain is deleted and the name claimed again by another workspace', async () => {
    const owner = await createOrg(api, { plan: 'pro' });
    const hostname = uniqueHostname('retire');
    const first = await verifiedDomain(api, dns, owner, hostname);
    const gtin = randomGtin();
    const code = await http(api.origin, 'POST', '/v1/qr-codes', { key: owner.apiKey, body: gs1(gtin, { domain_id: first.id }) });
    expect(code.status).toBe(201);
    expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${code.body.id}`, { key: owner.apiKey })).status).toBe(200);
    await purgeTrash(db(api), { organizationId: owner.organizationId, gs1RetirementDays: 365 });
    expect((await http(api.origin, 'DELETE', `/v1/domains/${first.id}`, { key: owner.apiKey })).status).toBe(200);

    const taker = await createOrg(api, { plan: 'pro' });
    const again = await verifiedDomain(api, dns, taker, hostname.toUpperCase());
    expect(again.id).not.toBe(first.id);
    const refused = await http(api.origin, 'POST', '/v1/qr-codes', { key: taker.apiKey, body: gs1(gtin, { domain_id: again.id }) });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'gs1_identifier_retired', gs1_code: 'GS1_IDENTIFIER_RETIRED' });
    // Retired on that host name only: the default host and other identifiers are free.
    expect((await http(api.origin, 'POST', '/v1/qr-codes', { key: taker.apiKey, body: gs1(gtin) })).status).toBe(201);
    expect((await http(api.origin, 'POST', '/v1/qr-codes', { key: taker.apiKey, body: gs1(randomGtin(), { domain_id: again.id }) })).status).toBe(201);
  });

  it('serves /.well-known/gs1resolver with the domain as resolverRoot, and refuses domain_id on PATCH (422)', async () => {
    const wk = await get('/.well-known/gs1resolver', domain.hostname);
    expect(wk.status).toBe(200);
    expect(JSON.parse(wk.body)).toMatchObject({ resolverRoot: `https://${domain.hostname}` });
    const code = await post(gs1(randomGtin(), { domain_id: domain.id }));
    const res = await http(api.origin, 'PATCH', `/v1/qr-codes/${code.body.id}`, { key: org.apiKey, body: { domain_id: domain.id } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'gs1_identifier_immutable', gs1_code: 'GS1_IDENTIFIER_IMMUTABLE' });
  });
});
