import type { Queue } from 'bull';
import { getQueueToken } from '@nestjs/bull';
import { QUEUES } from '../../src/common/queue/queues';
import { DomainRecheckProcessor, DomainRecheckScheduler, recheckJobId } from '../../src/modules/domains/domain-recheck';
import { TestDnsServer } from '../setup/dns-server';
import { createOrg, db, eventually, http, isolatedRedisUrl, startApi, startScan, startWorker, TestApp, TestOrg } from '../setup/app';

let seq = 0;
const unique = () => `v${Date.now().toString(36)}${(seq++).toString(36)}.verify-${process.pid}.example`;

/** The worker's 10-minute re-check and the scan host's TLS `ask` endpoint, against a loopback DNS server. */
describe('Custom domain verification (worker re-check, TLS ask)', () => {
  // A Redis database of its own: the re-check job must run in this file's worker (which asks the loopback DNS server),
  // not in another test file's.
  const REDIS_URL = isolatedRedisUrl(7);
  let dns: TestDnsServer;
  let api: TestApp;
  let scan: TestApp;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let org: TestOrg;

  beforeAll(async () => {
    dns = await new TestDnsServer().start();
    const env = { DOMAIN_DNS_SERVERS: dns.address, REDIS_URL };
    [api, scan, worker] = await Promise.all([startApi(env), startScan(env), startWorker(env)]);
    org = await createOrg(api, { plan: 'agency' });
  });
  afterAll(async () => {
    await Promise.all([api?.close(), scan?.close(), worker?.close()]);
    await dns.stop();
  });

  const create = async () => {
    const res = await http(api.origin, 'POST', '/v1/domains', { key: org.apiKey, body: { hostname: unique() } });
    expect(res.status).toBe(201);
    return res.body;
  };
  const status = async (id: string) => (await http(api.origin, 'GET', `/v1/domains/${id}`, { key: org.apiKey })).body.status;
  const age = (id: string, days: number) => db(api).execute(`update domains set created_at = now() - make_interval(days => ?) where id = ?`, [days, id]);

  it('enqueues the re-check under one job id per 10-minute window, and the job verifies pending domains', async () => {
    expect(recheckJobId(Date.parse('2026-11-23T16:29:59.999Z'))).toBe('domain-recheck:2026-11-23T16:20:00.000Z');
    expect(recheckJobId(Date.parse('2026-11-23T16:30:00.000Z'))).toBe('domain-recheck:2026-11-23T16:30:00.000Z');
    const published = await create();
    const silent = await create();
    dns.setTxt(published.verification.name, published.verification.value);
    const scheduler = worker.app.get(DomainRecheckScheduler);
    await scheduler.schedule();
    await scheduler.schedule();
    const queue = worker.app.get<Queue>(getQueueToken(QUEUES.maintenance));
    const jobs = await queue.getJobs(['waiting', 'active', 'completed', 'delayed']);
    expect(jobs.filter((j) => j.name === 'domain-recheck')).toHaveLength(1);
    await eventually(async () => (await status(published.id)) === 'verified', 20_000, 'the re-check to verify the domain');
    expect(await status(silent.id)).toBe('pending');
    // The worker's verification is in the audit log, by the system; a check that changed nothing is not.
    const audit = await http(api.origin, 'GET', `/v1/audit-log?resource_id=${published.id}&action=domain.updated`, { key: org.apiKey });
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({ actor: { type: 'system', id: 'system' }, changes: { status: ['pending', 'verified'] } });
    expect((await http(api.origin, 'GET', `/v1/audit-log?resource_id=${silent.id}&action=domain.updated`, { key: org.apiKey })).body.data).toEqual([]);
  });

  it('marks a domain failed after 7 days without the record; a later verify call still succeeds', async () => {
    const old = await create();
    const young = await create();
    await age(old.id, 8);
    await age(young.id, 6);
    await worker.app.get(DomainRecheckProcessor).recheck();
    expect(await status(old.id)).toBe('failed');
    expect(await status(young.id)).toBe('pending');
    const expired = await http(api.origin, 'GET', `/v1/audit-log?resource_id=${old.id}`, { key: org.apiKey });
    expect(expired.body.data[0]).toMatchObject({ action: 'domain.updated', actor: { type: 'system' }, changes: { status: ['pending', 'failed'] } });
    // A verify call after the window without the record leaves it failed; with the record it verifies.
    expect((await http(api.origin, 'POST', `/v1/domains/${old.id}/verify`, { key: org.apiKey })).body.status).toBe('failed');
    dns.setTxt(old.verification.name, old.verification.value);
    const res = await http(api.origin, 'POST', `/v1/domains/${old.id}/verify`, { key: org.apiKey });
    expect(res.body).toMatchObject({ status: 'verified', verified_at: expect.any(String) });
    // Asked for through the API: the key is the actor.
    const verified = await http(api.origin, 'GET', `/v1/audit-log?resource_id=${old.id}&limit=1`, { key: org.apiKey });
    expect(verified.body.data[0]).toMatchObject({ action: 'domain.updated', actor: { type: 'api_key', id: org.keyId }, changes: { status: ['failed', 'verified'] } });
    // Failed domains are not re-checked by the worker.
    const other = await create();
    await age(other.id, 8);
    await worker.app.get(DomainRecheckProcessor).recheck();
    dns.setTxt(other.verification.name, other.verification.value);
    await worker.app.get(DomainRecheckProcessor).recheck();
    expect(await status(other.id)).toBe('failed');
  });

  it('does not verify in the re-check a domain whose TXT record disappeared', async () => {
    const d = await create();
    dns.setTxt(d.verification.name, d.verification.value);
    dns.remove(d.verification.name);
    await worker.app.get(DomainRecheckProcessor).recheck();
    expect(await status(d.id)).toBe('pending');
  });

  describe('GET /.well-known/scanlink/tls-allowed on the scan host', () => {
    const ask = (query: string) => http(scan.origin, 'GET', `/.well-known/scanlink/tls-allowed${query}`);

    it('answers 200 for a verified domain and 404 for a pending, unknown or missing one', async () => {
      const d = await create();
      expect((await ask(`?domain=${d.hostname}`)).status).toBe(404);
      dns.setTxt(d.verification.name, d.verification.value);
      expect((await http(api.origin, 'POST', `/v1/domains/${d.id}/verify`, { key: org.apiKey })).body.status).toBe('verified');
      const ok = await ask(`?domain=${d.hostname}`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('cache-control')).toBe('no-store');
      expect((await ask(`?domain=${d.hostname.toUpperCase()}.`)).status).toBe(200);
      const unknown = await ask('?domain=unknown.example');
      expect([unknown.status, unknown.body.error?.code, unknown.body.error?.request_id]).toEqual([404, 'not_found', unknown.headers.get('request-id')]);
      expect((await ask('?domain=')).status).toBe(404);
      expect((await ask('')).status).toBe(404);
      expect((await ask('?domain=a&domain=b')).status).toBe(404);
    });

    it('stops answering 200 once the domain is removed', async () => {
      const d = await create();
      dns.setTxt(d.verification.name, d.verification.value);
      await http(api.origin, 'POST', `/v1/domains/${d.id}/verify`, { key: org.apiKey });
      expect((await ask(`?domain=${d.hostname}`)).status).toBe(200);
      expect((await http(api.origin, 'DELETE', `/v1/domains/${d.id}`, { key: org.apiKey })).status).toBe(200);
      expect((await ask(`?domain=${d.hostname}`)).status).toBe(404);
    });
  });
});
