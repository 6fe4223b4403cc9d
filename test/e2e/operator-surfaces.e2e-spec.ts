import { randomBytes } from 'node:crypto';
import { createOrg, db, http, startApi, startScan, startWorker, TestApp, writePlans } from '../setup/app';
import { requestWithHost } from '../setup/domains';
import { awayFromMinuteEnd } from '../setup/mcp';

/** Operator surfaces (docs/security.md "Operator surfaces"; issue 25 items 6, 7 and 12): /metrics without a token
 * answers loopback callers only and never on custom domains, each message of an MCP batch counts against the key's
 * rate limit, and the worker's doc_url follows the configured docs. */
describe('operator surfaces', () => {
  describe('/metrics', () => {
    let api: TestApp;
    let scan: TestApp;
    let hostname: string;

    beforeAll(async () => {
      api = await startApi();
      // A verified custom domain, arranged in the database before the scan process loads its host map.
      const org = await createOrg(api, { plan: 'pro' });
      hostname = `metrics-${randomBytes(4).toString('hex')}.example`;
      await db(api).execute(
        `insert into domains (id, organization_id, environment, hostname, status, verification_value, verified_at) values (?, ?, 'live', ?, 'verified', 'x', now())`,
        [`dom_${randomBytes(10).toString('hex')}`, org.organizationId, hostname],
      );
      scan = await startScan();
    });
    afterAll(async () => {
      await Promise.all([scan?.close(), api?.close()]);
    });

    it('without METRICS_TOKEN answers loopback callers only: a client relayed by a trusted proxy gets 403', async () => {
      expect((await http(api.origin, 'GET', '/metrics')).status).toBe(200);
      const relayed = await http(api.origin, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } });
      expect(relayed.status).toBe(403);
      expect(relayed.body.error.code).toBe('forbidden');
      expect(relayed.text).not.toContain('process_cpu');
      expect((await http(scan.origin, 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(403);
      expect((await http(scan.origin, 'GET', '/metrics')).status).toBe(200);
    });

    it('is never served on a custom domain of the scan host, whatever the caller', async () => {
      const res = await requestWithHost(scan.origin, 'GET', '/metrics', hostname);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('process_cpu');
    });

    it('with METRICS_TOKEN answers the token from anywhere, and nothing else', async () => {
      const token = 'metrics-token-0123456789abcdef';
      const guarded = await startApi({ METRICS_TOKEN: token });
      try {
        const auth = { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.7' };
        expect((await http(guarded.origin, 'GET', '/metrics', { headers: auth })).status).toBe(200);
        expect((await http(guarded.origin, 'GET', '/metrics')).status).toBe(401);
      } finally {
        await guarded.close();
      }
    });
  });

  it('counts each message of an MCP batch against the key rate limit (no large answer for one request)', async () => {
    const api = await startApi({ PLANS_FILE: writePlans({ plus: { requests_per_minute: 10 } }) });
    try {
      const org = await createOrg(api, { plan: 'plus' });
      await awayFromMinuteEnd();
      const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' }));
      const res = await http(api.origin, 'POST', '/mcp', {
        key: org.apiKey,
        body: batch,
        headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      });
      expect(res.status).toBe(429);
      expect(res.body.error.code).toBe('rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.text.length).toBeLessThan(2000);
      // The window is spent: the next REST call is refused too.
      expect((await http(api.origin, 'GET', '/v1/qr-codes', { key: org.apiKey })).status).toBe(429);
    } finally {
      await api.close();
    }
  });

  it("the worker's error answers point doc_url at the configured docs, not http://localhost:3000", async () => {
    const worker = await startWorker({ API_BASE_URL: 'https://api.scanlink.example/v1' });
    try {
      const res = await http(worker.origin, 'GET', '/no-such-route');
      expect(res.status).toBe(404);
      expect(res.body.error.doc_url).toBe('https://api.scanlink.example/docs/errors#not_found');
    } finally {
      await worker.close();
    }
  });
});
