import { MikroORM } from '@mikro-orm/postgresql';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { loadPlans } from '../../src/modules/accounts/plans';
import { TestDnsServer } from '../setup/dns-server';
import { createOrg, http, startApi, TestApp, TestOrg } from '../setup/app';

const DOMAIN_KEYS = ['created_at', 'hostname', 'id', 'object', 'primary', 'status', 'verification', 'verified_at'];
let seq = 0;
/** A host name no other test (or run) holds: host names are unique across every workspace of the database. */
const unique = (label = 'go') => `${label}-${Date.now().toString(36)}${(seq++).toString(36)}.acme-${process.pid}.example`;

describe('Custom domains (/v1/domains)', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let org: TestOrg;

  beforeAll(async () => {
    dns = await new TestDnsServer().start();
    t = await startApi({
      DOMAIN_DNS_SERVERS: dns.address,
      API_BASE_URL: 'https://api.scanlink.test/v1',
      SCAN_BASE_URL: 'https://scan.scanlink.test',
      IMAGE_BASE_URL: 'https://cdn.scanlink.test/images',
    });
    org = await createOrg(t, { plan: 'agency' });
  });
  afterAll(async () => {
    await t.close();
    await dns.stop();
  });

  const create = (key: string, hostname: unknown, headers?: Record<string, string>) =>
    http(t.origin, 'POST', '/v1/domains', { key, body: { hostname }, headers });
  const verify = (key: string, id: string) => http(t.origin, 'POST', `/v1/domains/${id}/verify`, { key });
  const addKey = async (o: TestOrg, environment: 'live' | 'test', scopes?: string[]) => {
    const accounts = new AccountsService(t.app.get(MikroORM).em.fork() as never, loadPlans(t.config.plansFile));
    return (await accounts.createKey(o.organizationId, { name: `${environment} key`, environment, scopes })).secret;
  };
  /** Creates and verifies a domain through the API and the loopback DNS server. */
  const verified = async (key: string, hostname = unique()) => {
    const made = await create(key, hostname);
    expect(made.status).toBe(201);
    dns.setTxt(made.body.verification.name, made.body.verification.value);
    const res = await verify(key, made.body.id);
    expect(res.body.status).toBe('verified');
    return res.body;
  };

  describe('POST /v1/domains', () => {
    it('creates a pending domain with its TXT challenge', async () => {
      const hostname = unique();
      const res = await create(org.apiKey, hostname);
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(DOMAIN_KEYS);
      expect(res.body).toMatchObject({ object: 'domain', hostname, status: 'pending', primary: false, verified_at: null });
      expect(res.body.id).toMatch(/^dom_[0-9A-Za-z]{16,}$/);
      expect(res.body.verification).toEqual({ type: 'TXT', name: `_scanlink-challenge.${hostname}`, value: expect.stringMatching(/^scanlink-verify=[0-9A-Za-z]{16,}$/), last_error: null, last_checked_at: null });
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    });

    it('lower-cases the host name and converts it to punycode', async () => {
      const label = `b\u00fccher-${Date.now().toString(36)}`;
      const res = await create(org.apiKey, `${label.toUpperCase()}.Example.`);
      expect(res.status).toBe(201);
      expect(res.body.hostname).toMatch(/^xn--bcher-.*\.example$/);
      expect(res.body.verification.name).toBe(`_scanlink-challenge.${res.body.hostname}`);
    });

    it.each([
      ['localhost', 'two labels'],
      ['10.0.0.1', 'IP address'],
      ['[::1]', 'bare host name'],
      ['https://go.acme.example/', 'bare host name'],
      ['go.acme.example:8443', 'bare host name'],
      ['bad_label.example', 'not a valid domain name'],
      ['scan.scanlink.test', "service's own hosts"],
      ['API.scanlink.test', "service's own hosts"],
      ['cdn.scanlink.test', "service's own hosts"],
    ])('refuses %j with 400 naming hostname (%s)', async (hostname, why) => {
      const res = await create(org.apiKey, hostname);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'hostname' });
      expect(res.body.error.message).toContain(why);
    });

    it('refuses a missing or non-string hostname and unknown fields', async () => {
      for (const body of [{}, { hostname: 42 }, { hostname: null }, { hostname: unique(), primary: true }]) {
        const res = await http(t.origin, 'POST', '/v1/domains', { key: org.apiKey, body });
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
      }
    });

    it('refuses a second claim of a host name by the same workspace (409 domain_taken), whatever its case; a pending claim blocks no other workspace', async () => {
      const hostname = unique();
      expect((await create(org.apiKey, hostname)).status).toBe(201);
      expect((await create(org.apiKey, hostname.toUpperCase())).body.error.code).toBe('domain_taken');
      // Pending claims block nobody (domains-claims.e2e-spec.ts: the first to verify wins; a verified name is 409).
      const other = await createOrg(t, { plan: 'pro' });
      const res = await create(other.apiKey, hostname.toUpperCase());
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('pending');
    });

    it('lets exactly one claim per workspace win when claims of a host name arrive concurrently', async () => {
      const [a, b] = await Promise.all([createOrg(t, { plan: 'pro' }), createOrg(t, { plan: 'pro' })]);
      const hostname = unique();
      const results = await Promise.all([a, b, a, b].map((o) => create(o.apiKey, hostname)));
      expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409]);
      expect(results[0].status + results[2].status).toBe(201 + 409);
    });

    it('replays the first response for a retried Idempotency-Key', async () => {
      const hostname = unique();
      const first = await create(org.apiKey, hostname, { 'idempotency-key': `dom-${hostname}` });
      const again = await create(org.apiKey, hostname, { 'idempotency-key': `dom-${hostname}` });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body.id).toBe(first.body.id);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });
  });

  describe('plans and scopes', () => {
    it('refuses custom domains on the free plan (403 plan_restricted)', async () => {
      const free = await createOrg(t, { plan: 'free' });
      const res = await create(free.apiKey, unique());
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'plan_restricted', plan_id: 'free' });
    });

    it("counts the workspace's domains against the plan (403 plan_limit_reached), also under concurrency", async () => {
      const plus = await createOrg(t, { plan: 'plus' });
      const results = await Promise.all([unique(), unique(), unique()].map((h) => create(plus.apiKey, h)));
      expect(results.map((r) => r.status).sort()).toEqual([201, 403, 403]);
      const refused = results.find((r) => r.status === 403)!;
      expect(refused.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 1, current_count: 1, requested: 1, plan_id: 'plus' });
      // The test environment shares the workspace's count.
      const testKey = await addKey(plus, 'test');
      expect((await create(testKey, unique())).body.error.code).toBe('plan_limit_reached');
    });

    it('needs qr:write to change domains and qr:read to read them', async () => {
      const readOnly = await addKey(org, 'live', ['qr:read']);
      const writeOnly = await addKey(org, 'live', ['qr:write']);
      const made = await create(org.apiKey, unique());
      expect((await create(readOnly, unique())).body.error.code).toBe('insufficient_scope');
      expect((await verify(readOnly, made.body.id)).body.error.code).toBe('insufficient_scope');
      expect((await http(t.origin, 'PATCH', `/v1/domains/${made.body.id}`, { key: readOnly, body: { primary: false } })).body.error.code).toBe('insufficient_scope');
      expect((await http(t.origin, 'DELETE', `/v1/domains/${made.body.id}`, { key: readOnly })).body.error.code).toBe('insufficient_scope');
      expect((await http(t.origin, 'GET', `/v1/domains/${made.body.id}`, { key: readOnly })).status).toBe(200);
      expect((await http(t.origin, 'GET', '/v1/domains', { key: writeOnly })).body.error.code).toBe('insufficient_scope');
      expect((await http(t.origin, 'GET', '/v1/domains')).status).toBe(401);
    });
  });

  describe('reading', () => {
    it('lists newest first with cursor pages, and refuses unknown parameters', async () => {
      const o = await createOrg(t, { plan: 'pro' });
      const ids: string[] = [];
      for (const h of [unique(), unique(), unique()]) ids.push((await create(o.apiKey, h)).body.id);
      const first = await http(t.origin, 'GET', '/v1/domains?limit=2', { key: o.apiKey });
      expect(first.body).toMatchObject({ object: 'list', has_more: true });
      expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
      const second = await http(t.origin, 'GET', `/v1/domains?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: o.apiKey });
      expect(second.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
      expect(second.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
      expect((await http(t.origin, 'GET', '/v1/domains?limit=0', { key: o.apiKey })).body.error.field).toBe('limit');
      expect((await http(t.origin, 'GET', '/v1/domains?status=verified', { key: o.apiKey })).status).toBe(400);
      expect((await http(t.origin, 'GET', '/v1/domains?cursor=tampered', { key: o.apiKey })).body.error.field).toBe('cursor');
    });

    it("answers 404 for another workspace's domain on every route", async () => {
      const made = await create(org.apiKey, unique());
      const other = await createOrg(t, { plan: 'pro' });
      const id = made.body.id;
      for (const [method, path, body] of [
        ['GET', `/v1/domains/${id}`],
        ['PATCH', `/v1/domains/${id}`, { primary: false }],
        ['POST', `/v1/domains/${id}/verify`],
        ['DELETE', `/v1/domains/${id}`],
        ['GET', '/v1/domains/dom_unknown0000000000000000'],
        ['GET', '/v1/domains/qr_notadomain'],
      ] as Array<[string, string, object?]>) {
        const res = await http(t.origin, method, path, { key: other.apiKey, body });
        expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, 'not_found']);
      }
      expect((await http(t.origin, 'GET', '/v1/domains', { key: other.apiKey })).body.data).toEqual([]);
      expect((await http(t.origin, 'GET', `/v1/domains/${id}`, { key: org.apiKey })).status).toBe(200);
    });

    it('keeps test and live domains apart: each key sees only its environment', async () => {
      const o = await createOrg(t, { plan: 'pro' });
      const testKey = await addKey(o, 'test');
      const live = await create(o.apiKey, unique());
      const test = await create(testKey, unique());
      const ids = async (key: string) => (await http(t.origin, 'GET', '/v1/domains', { key })).body.data.map((d: { id: string }) => d.id);
      expect(await ids(o.apiKey)).toEqual([live.body.id]);
      expect(await ids(testKey)).toEqual([test.body.id]);
      expect((await http(t.origin, 'GET', `/v1/domains/${live.body.id}`, { key: testKey })).status).toBe(404);
      expect((await http(t.origin, 'DELETE', `/v1/domains/${test.body.id}`, { key: o.apiKey })).status).toBe(404);
    });
  });

  describe('POST /v1/domains/{id}/verify', () => {
    it('stays pending without the record, and verifies once the TXT record is published', async () => {
      const made = (await create(org.apiKey, unique())).body;
      const before = await verify(org.apiKey, made.id);
      expect(before.status).toBe(200);
      expect(before.body).toMatchObject({ id: made.id, status: 'pending', verified_at: null });
      dns.setTxt(made.verification.name, 'scanlink-verify=someone-elses-token');
      expect((await verify(org.apiKey, made.id)).body.status).toBe('pending');
      dns.setTxt(made.verification.name, 'v=spf1 -all', made.verification.value);
      const after = await verify(org.apiKey, made.id);
      expect(after.body).toMatchObject({ id: made.id, status: 'verified' });
      expect(Date.parse(after.body.verified_at)).toBeGreaterThan(Date.now() - 60_000);
      expect((await http(t.origin, 'GET', `/v1/domains/${made.id}`, { key: org.apiKey })).body.status).toBe('verified');
      expect(dns.questions.some((q) => q.name === made.verification.name)).toBe(true);
    });

    it('does not verify a domain whose TXT record disappeared before the check', async () => {
      const made = (await create(org.apiKey, unique())).body;
      dns.setTxt(made.verification.name, made.verification.value);
      dns.remove(made.verification.name);
      const res = await verify(org.apiKey, made.id);
      expect(res.body).toMatchObject({ status: 'pending', verified_at: null });
    });

    it('keeps a verified domain verified when its record is later removed', async () => {
      const domain = await verified(org.apiKey);
      dns.remove(domain.verification.name);
      expect((await verify(org.apiKey, domain.id)).body).toMatchObject({ status: 'verified', verified_at: domain.verified_at });
    });

    it('refuses a body', async () => {
      const made = (await create(org.apiKey, unique())).body;
      const res = await http(t.origin, 'POST', `/v1/domains/${made.id}/verify`, { key: org.apiKey, body: { force: true } });
      expect(res.status).toBe(400);
    });
  });

  describe('PATCH /v1/domains/{id}', () => {
    it('makes one verified domain primary at a time, and clears it', async () => {
      const o = await createOrg(t, { plan: 'pro' });
      const a = await verified(o.apiKey);
      const b = await verified(o.apiKey);
      const patch = (id: string, body: object) => http(t.origin, 'PATCH', `/v1/domains/${id}`, { key: o.apiKey, body });
      expect((await patch(a.id, { primary: true })).body).toMatchObject({ id: a.id, primary: true });
      expect((await patch(b.id, { primary: true })).body).toMatchObject({ id: b.id, primary: true });
      const list = (await http(t.origin, 'GET', '/v1/domains', { key: o.apiKey })).body.data;
      expect(list.map((d: { id: string; primary: boolean }) => [d.id, d.primary])).toEqual([[b.id, true], [a.id, false]]);
      expect((await patch(b.id, { primary: false })).body.primary).toBe(false);
      expect((await patch(b.id, {})).body.primary).toBe(false);
      // Concurrent switches leave exactly one primary.
      await Promise.all([patch(a.id, { primary: true }), patch(b.id, { primary: true }), patch(a.id, { primary: true })]);
      const after = (await http(t.origin, 'GET', '/v1/domains', { key: o.apiKey })).body.data;
      expect(after.filter((d: { primary: boolean }) => d.primary)).toHaveLength(1);
    });

    it('refuses primary on a domain that is not verified (422 domain_not_verified) and bad bodies (400)', async () => {
      const made = (await create(org.apiKey, unique())).body;
      const res = await http(t.origin, 'PATCH', `/v1/domains/${made.id}`, { key: org.apiKey, body: { primary: true } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('domain_not_verified');
      for (const body of [{ primary: 'yes' }, { primary: null }, { hostname: 'other.example' }]) {
        expect((await http(t.origin, 'PATCH', `/v1/domains/${made.id}`, { key: org.apiKey, body })).status).toBe(400);
      }
    });
  });

  describe('DELETE /v1/domains/{id}', () => {
    it('deletes an unused domain, after which the host name is free for any workspace', async () => {
      const o = await createOrg(t, { plan: 'pro' });
      const domain = await verified(o.apiKey);
      const gone = await http(t.origin, 'DELETE', `/v1/domains/${domain.id}`, { key: o.apiKey });
      expect(gone.status).toBe(200);
      expect(gone.body).toEqual({ id: domain.id, object: 'domain', deleted: true });
      expect((await http(t.origin, 'GET', `/v1/domains/${domain.id}`, { key: o.apiKey })).status).toBe(404);
      expect((await http(t.origin, 'DELETE', `/v1/domains/${domain.id}`, { key: o.apiKey })).status).toBe(404);
      const other = await createOrg(t, { plan: 'plus' });
      expect((await create(other.apiKey, domain.hostname)).status).toBe(201);
    });
    // Domains that codes use: domains-codes.e2e-spec.ts.
  });

  it('documents the domain routes and shapes in the OpenAPI document', async () => {
    const doc = (await http(t.origin, 'GET', '/docs/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/domains', '/v1/domains/{id}', '/v1/domains/{id}/verify']));
    expect(doc.paths['/v1/domains'].post.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/DomainDto');
    expect(doc.paths['/v1/domains/{id}'].delete.responses['409']).toBeDefined();
    expect(Object.keys(doc.components.schemas.DomainDto.properties).sort()).toEqual(DOMAIN_KEYS);
  });
});
