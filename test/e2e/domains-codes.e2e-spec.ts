import { closeDecoders, decodeBoth } from '../../src/modules/rendering/testing/qr-decoders';
import { purgeTrash } from '../../src/modules/qr-codes/qr-lifecycle';
import { TestDnsServer } from '../setup/dns-server';
import { addKey, createCode, createOrg, db, eventually, http, startApi, startWorker, TestApp, TestOrg } from '../setup/app';
import { pendingDomain, uniqueHostname, verifiedDomain } from '../setup/domains';

const SCAN = 'https://scan.scanlink.test';
const URL_TARGET = { type: 'url', destination: 'https://example.com/landing' };

/** Codes on custom domains through the API: `domain_id` on creation (single and batch), short URLs and images,
 * short codes per domain, and removing a domain that codes use. */
describe('Codes on custom domains', () => {
  let api: TestApp;
  let worker: { close(): Promise<void> };
  let dns: TestDnsServer;

  beforeAll(async () => {
    dns = await new TestDnsServer().start();
    [api, worker] = await Promise.all([startApi({ DOMAIN_DNS_SERVERS: dns.address, SCAN_BASE_URL: SCAN }), startWorker()]);
  });
  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close(), closeDecoders()]);
    await dns.stop();
  });

  const post = (org: TestOrg, body: Record<string, unknown>) => http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body });
  const makePrimary = async (org: TestOrg, id: string) =>
    expect((await http(api.origin, 'PATCH', `/v1/domains/${id}`, { key: org.apiKey, body: { primary: true } })).body.primary).toBe(true);

  describe('POST /v1/qr-codes with domain_id', () => {
    it('creates a dynamic code on a verified domain: short_url, a page code\'s destination and the image carry https://<host>/<code>', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const domain = await verifiedDomain(api, dns, org);
      const res = await post(org, { target: URL_TARGET, domain_id: domain.id });
      expect(res.status).toBe(201);
      const expected = `https://${domain.hostname}/${res.body.short_code}`;
      expect(res.body).toMatchObject({ domain_id: domain.id, short_url: expected, kind: 'dynamic' });
      const png = await fetch(`${api.origin}/v1/qr-codes/${res.body.id}/download?format=png&size=600`, { headers: { authorization: `Bearer ${org.apiKey}` } });
      expect(await decodeBoth(Buffer.from(await png.arrayBuffer()))).toEqual({ zxing: expected, qr: expected });
      // Retrieve and list show the same URL.
      expect((await http(api.origin, 'GET', `/v1/qr-codes/${res.body.id}`, { key: org.apiKey })).body.short_url).toBe(expected);
      const list = await http(api.origin, 'GET', '/v1/qr-codes', { key: org.apiKey });
      expect(list.body.data.find((c: { id: string }) => c.id === res.body.id)).toMatchObject({ short_url: expected, domain_id: domain.id });

      const page = await post(org, { target: { type: 'linkpage', title: 'Links', links: [{ title: 'Site', url: 'https://example.com' }] }, domain_id: domain.id });
      expect(page.status).toBe(201);
      expect(page.body.short_url).toBe(`https://${domain.hostname}/${page.body.short_code}`);
      expect(page.body.target.destination).toBe(page.body.short_url);
    });

    it('uses the primary domain when domain_id is omitted, and the default scan host for domain_id: null', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const before = await createCode(api, org, { target: URL_TARGET });
      expect(before).toMatchObject({ domain_id: null, short_url: `${SCAN}/${before.short_code}` });
      const other = await verifiedDomain(api, dns, org);
      const primary = await verifiedDomain(api, dns, org);
      // A verified domain that is not primary is not used by default.
      expect((await createCode(api, org, { target: URL_TARGET })).domain_id).toBeNull();
      await makePrimary(org, primary.id);
      const omitted = await createCode(api, org, { target: URL_TARGET });
      expect(omitted).toMatchObject({ domain_id: primary.id, short_url: `https://${primary.hostname}/${omitted.short_code}` });
      const named = await createCode(api, org, { target: URL_TARGET, domain_id: other.id });
      expect(named).toMatchObject({ domain_id: other.id, short_url: `https://${other.hostname}/${named.short_code}` });
      const defaultHost = await createCode(api, org, { target: URL_TARGET, domain_id: null });
      expect(defaultHost).toMatchObject({ domain_id: null, short_url: `${SCAN}/${defaultHost.short_code}` });
      // The test environment has its own primary domain (none here).
      const testKey = await addKey(api, org.organizationId, { environment: 'test' });
      expect((await createCode(api, testKey, { target: URL_TARGET })).domain_id).toBeNull();
      expect((await post(testKey, { target: URL_TARGET, domain_id: primary.id })).status).toBe(404);
    });

    it("refuses an unknown or another workspace's domain (404) and one not verified yet (422 domain_not_verified)", async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const stranger = await createOrg(api, { plan: 'pro' });
      const foreign = await verifiedDomain(api, dns, stranger);
      for (const domainId of [foreign.id, 'dom_0000000000000000000000', 'nope']) {
        const res = await post(org, { target: URL_TARGET, domain_id: domainId });
        expect(res.status).toBe(404);
        expect(res.body.error).toMatchObject({ code: 'not_found', field: 'domain_id' });
      }
      const pending = await pendingDomain(api, org);
      const refused = await post(org, { target: URL_TARGET, domain_id: pending.id });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'domain_not_verified', field: 'domain_id' });
      // A record that disappears before the check leaves the domain pending: still refused.
      dns.setTxt(pending.verification.name, pending.verification.value);
      dns.remove(pending.verification.name);
      expect((await http(api.origin, 'POST', `/v1/domains/${pending.id}/verify`, { key: org.apiKey })).body.status).toBe('pending');
      expect((await post(org, { target: URL_TARGET, domain_id: pending.id })).body.error.code).toBe('domain_not_verified');
      await db(api).execute(`update domains set status = 'failed' where id = ?`, [pending.id]);
      expect((await post(org, { target: URL_TARGET, domain_id: pending.id })).body.error.code).toBe('domain_not_verified');
      const bad = await post(org, { target: URL_TARGET, domain_id: 42 });
      expect(bad.status).toBe(400);
      expect(bad.body.error.field).toBe('domain_id');
      // Nothing was created by the refused requests.
      expect((await http(api.origin, 'GET', '/v1/qr-codes', { key: org.apiKey })).body.data).toHaveLength(0);
    });

    it('gives static codes no domain: 400 for a domain_id, and the primary domain is not applied', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const domain = await verifiedDomain(api, dns, org);
      await makePrimary(org, domain.id);
      const refused = await post(org, { type: 'static', target: { type: 'text', text: 'hello' }, domain_id: domain.id });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', field: 'domain_id' });
      const plain = await createCode(api, org, { type: 'static', target: { type: 'text', text: 'hello' } });
      expect(plain).toMatchObject({ kind: 'static', short_url: null, domain_id: null });
      expect((await createCode(api, org, { type: 'static', target: { type: 'text', text: 'hi' }, domain_id: null })).domain_id).toBeNull();
    });

    it('keeps domain_id fixed: PATCH accepts the current value and refuses another (422 domain_id_immutable)', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const domain = await verifiedDomain(api, dns, org);
      const code = await createCode(api, org, { target: URL_TARGET, domain_id: domain.id });
      const patch = (body: Record<string, unknown>) => http(api.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body });
      const same = await patch({ domain_id: domain.id, name: 'Renamed' });
      expect(same.status).toBe(200);
      expect(same.body).toMatchObject({ name: 'Renamed', domain_id: domain.id, short_url: code.short_url });
      for (const domainId of [null, 'dom_0000000000000000000000']) {
        const res = await patch({ domain_id: domainId });
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('domain_id_immutable');
      }
    });

    it('keeps short codes unique per domain, not across domains', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const [one, two] = [await verifiedDomain(api, dns, org), await verifiedDomain(api, dns, org)];
      const a = await createCode(api, org, { target: URL_TARGET, domain_id: one.id });
      const b = await createCode(api, org, { target: URL_TARGET, domain_id: two.id });
      const c = await createCode(api, org, { target: URL_TARGET, domain_id: one.id });
      const onDefault = await createCode(api, org, { target: URL_TARGET, domain_id: null });
      const setShort = (id: string) => db(api).execute('update qr_codes set short_code = ? where id = ?', [a.short_code, id]);
      await setShort(b.id); // another domain: allowed
      await setShort(onDefault.id); // the default host: allowed
      await expect(setShort(c.id)).rejects.toThrow(/qr_codes_short_code_uq/); // the same domain: refused
    });
  });

  it('takes domain_id on batch items like single creation', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const primary = await verifiedDomain(api, dns, org);
    const other = await verifiedDomain(api, dns, org);
    const pending = await pendingDomain(api, org);
    await makePrimary(org, primary.id);
    const res = await http(api.origin, 'POST', '/v1/batches', {
      key: org.apiKey,
      body: {
        items: [
          { name: 'primary', target: { destination: 'https://example.com/1' } },
          { name: 'other', target: { destination: 'https://example.com/2' }, domain_id: other.id },
          { name: 'default', target: { destination: 'https://example.com/3' }, domain_id: null },
          { name: 'pending', target: { destination: 'https://example.com/4' }, domain_id: pending.id },
        ],
      },
    });
    expect(res.status).toBe(202);
    const done = await eventually(async () => {
      const b = await http(api.origin, 'GET', `/v1/batches/${res.body.id}`, { key: org.apiKey });
      return b.body.status !== 'processing' ? b.body : undefined;
    }, 30_000, 'the batch');
    expect(done.items.map((i: { status: string }) => i.status)).toEqual(['completed', 'completed', 'completed', 'failed']);
    expect(done.items[3].error).toMatch(/domain/);
    const code = async (i: number) => (await http(api.origin, 'GET', `/v1/qr-codes/${done.items[i].qr_code_id}`, { key: org.apiKey })).body;
    const [a, b, c] = [await code(0), await code(1), await code(2)];
    expect(a).toMatchObject({ domain_id: primary.id, short_url: `https://${primary.hostname}/${a.short_code}` });
    expect(b).toMatchObject({ domain_id: other.id, short_url: `https://${other.hostname}/${b.short_code}` });
    expect(c).toMatchObject({ domain_id: null, short_url: `${SCAN}/${c.short_code}` });
  });

  describe('DELETE /v1/domains/{id} while codes use it', () => {
    it('refuses while live, trashed or paused codes use the domain; once they are gone the host name is free for any workspace', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const domain = await verifiedDomain(api, dns, org);
      const code = await createCode(api, org, { target: URL_TARGET, domain_id: domain.id });
      const remove = () => http(api.origin, 'DELETE', `/v1/domains/${domain.id}`, { key: org.apiKey });
      const live = await remove();
      expect(live.status).toBe(409);
      expect(live.body.error.code).toBe('domain_in_use');
      // Paused (a plan downgrade): still in use, it comes back on restore.
      await db(api).execute(`update qr_codes set status = 'paused', deleted_at = now() where id = ?`, [code.id]);
      expect((await remove()).body.error.code).toBe('domain_in_use');
      await db(api).execute(`update qr_codes set status = 'live', deleted_at = null where id = ?`, [code.id]);
      expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).status).toBe(200);
      const trashed = await remove();
      expect(trashed.status).toBe(409);
      expect(trashed.body.error.code).toBe('domain_in_use');
      await purgeTrash(db(api), { organizationId: org.organizationId });
      const gone = await remove();
      expect(gone.status).toBe(200);
      expect(gone.body).toEqual({ id: domain.id, object: 'domain', deleted: true });
      // Another workspace claims the host name and serves codes from it.
      const next = await createOrg(api, { plan: 'plus' });
      const again = await verifiedDomain(api, dns, next, domain.hostname);
      const reused = await createCode(api, next, { target: URL_TARGET, domain_id: again.id });
      expect(reused.short_url).toBe(`https://${domain.hostname}/${reused.short_code}`);
    });

    it('answers 404 for a code created with a domain removed meanwhile', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const domain = await verifiedDomain(api, dns, org, uniqueHostname('gone'));
      expect((await http(api.origin, 'DELETE', `/v1/domains/${domain.id}`, { key: org.apiKey })).status).toBe(200);
      const res = await post(org, { target: URL_TARGET, domain_id: domain.id });
      expect(res.status).toBe(404);
      expect(res.body.error.field).toBe('domain_id');
    });
  });
});
