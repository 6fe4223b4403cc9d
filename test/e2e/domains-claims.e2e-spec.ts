import { DomainRecheckProcessor } from '../../src/modules/domains/domain-recheck';
import { TestDnsServer } from '../setup/dns-server';
import { uniqueHostname } from '../setup/domains';
import { createOrg, db, http, isolatedRedisUrl, startApi, startWorker, TestApp, TestOrg } from '../setup/app';

/** Domain claims (docs/domains.md; issue 25 items 4 and 9): pending claims block nobody, the first to verify wins and
 * fails the others (`taken`), failed DNS lookups are reported apart from a missing record, 7 days pending → failed. */
describe('Custom domain claims', () => {
  const REDIS_URL = isolatedRedisUrl(10);
  let dns: TestDnsServer;
  let api: TestApp;
  let worker: TestApp;
  let owner: TestOrg;
  let squatter: TestOrg;

  beforeAll(async () => {
    dns = await new TestDnsServer().start();
    const env = { DOMAIN_DNS_SERVERS: dns.address, REDIS_URL };
    [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
    [owner, squatter] = await Promise.all([createOrg(api, { plan: 'agency', name: 'Victim brand' }), createOrg(api, { plan: 'agency', name: 'Squatter' })]);
  });
  afterAll(async () => {
    await Promise.all([api?.close(), worker?.close()]);
    await dns.stop();
  });

  const claim = (who: TestOrg, hostname: string) => http(api.origin, 'POST', '/v1/domains', { key: who.apiKey, body: { hostname } });
  const get = async (who: TestOrg, id: string) => (await http(api.origin, 'GET', `/v1/domains/${id}`, { key: who.apiKey })).body;
  const verify = (who: TestOrg, id: string) => http(api.origin, 'POST', `/v1/domains/${id}/verify`, { key: who.apiKey });

  it("a squatter's pending claim does not block the real owner, who verifies first; the squatter's claim fails as taken", async () => {
    const hostname = uniqueHostname('brand');
    const squat = await claim(squatter, hostname);
    expect(squat.status).toBe(201);
    expect(squat.body.verification).toMatchObject({ last_error: null, last_checked_at: null });
    const mine = await claim(owner, hostname);
    expect(mine.status).toBe(201);
    expect(mine.body.status).toBe('pending');
    // One claim per workspace and host name.
    expect((await claim(owner, hostname.toUpperCase())).body.error).toMatchObject({ code: 'domain_taken', field: 'hostname' });

    dns.setTxt(mine.body.verification.name, mine.body.verification.value);
    const verified = await verify(owner, mine.body.id);
    expect(verified.body).toMatchObject({ status: 'verified', verification: { last_error: null, last_checked_at: expect.any(String) } });

    const lost = await get(squatter, squat.body.id);
    expect(lost.status).toBe('failed');
    expect(lost.verification.last_error).toBe('taken');
    // Publishing its own record changes nothing now: the name is verified by another workspace.
    dns.setTxt(squat.body.verification.name, mine.body.verification.value, squat.body.verification.value);
    const again = await verify(squatter, squat.body.id);
    expect(again.body).toMatchObject({ status: 'failed', verification: { last_error: 'taken' } });
    // New claims of a verified name are refused.
    const late = await createOrg(api, { plan: 'pro' });
    const refused = await claim(late, hostname);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('domain_taken');
  });

  it('two claims passing the TXT check at once: exactly one verifies', async () => {
    const hostname = uniqueHostname('race');
    const [a, b] = await Promise.all([claim(owner, hostname), claim(squatter, hostname)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    dns.setTxt(a.body.verification.name, a.body.verification.value, b.body.verification.value);
    const [va, vb] = await Promise.all([verify(owner, a.body.id), verify(squatter, b.body.id)]);
    const statuses = [(await get(owner, a.body.id)).status, (await get(squatter, b.body.id)).status].sort();
    expect(statuses).toEqual(['failed', 'verified']);
    expect([va.status, vb.status]).toEqual([200, 200]);
    const loser = (await get(owner, a.body.id)).status === 'failed' ? await get(owner, a.body.id) : await get(squatter, b.body.id);
    expect(loser.verification.last_error).toBe('taken');
  });

  it.each([
    ['servfail', 'servfail'],
    ['refused', 'refused'],
    ['timeout', 'timeout'],
  ] as const)('reports a DNS lookup that fails (%s) in verification.last_error, apart from a missing record', async (how, expected) => {
    const hostname = uniqueHostname(how);
    const made = (await claim(owner, hostname)).body;
    dns.fail(made.verification.name, how);
    const res = await verify(owner, made.id);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('pending');
    expect(res.body.verification.last_error).toBe(expected);
    expect(Date.parse(res.body.verification.last_checked_at)).toBeGreaterThan(Date.now() - 60_000);
    dns.remove(made.verification.name);
    const missing = await verify(owner, made.id);
    expect(missing.body.verification.last_error).toBe('not_found');
  }, 60_000);

  it('a claim pending for 7 days becomes failed, even when no check reached it; a later verify can still succeed', async () => {
    const made = (await claim(squatter, uniqueHostname('old'))).body;
    await db(api).execute(`update domains set created_at = now() - interval '8 days', checked_at = now() + interval '1 hour' where id = ?`, [made.id]);
    await worker.app.get(DomainRecheckProcessor).recheck();
    const failed = await get(squatter, made.id);
    expect(failed.status).toBe('failed');
    expect(failed.verification.last_error).toBe('expired');
    dns.setTxt(made.verification.name, made.verification.value);
    expect((await verify(squatter, made.id)).body.status).toBe('verified');
  });
});
