import { Agent, request } from 'undici';
import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { createCode, createOrg, db, eventually, http, isolatedRedisUrl, startApi, startWorker, TestApp, TestOrg } from '../setup/app';
import { spawnProcess } from '../setup/processes';

const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/**
 * SIGTERM on real processes (docs/operations.md "Shutdown"): each stops taking new work, finishes what it has, the
 * scan host writes every scan it answered to the stream, and the process exits 0. Nothing is lost.
 */
describe('graceful shutdown on SIGTERM', () => {
  it('scan host: a burst in progress loses no counted scan, and the process exits 0', async () => {
    const REDIS_URL = isolatedRedisUrl(10);
    const api = await startApi({ REDIS_URL });
    let worker: TestApp | undefined;
    try {
      const org = await createOrg(api, { plan: 'pro' });
      const code = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/burst' } });
      // Scans stay in the process's buffer until shutdown (a flush every 60 s, or at 500 scans).
      const scan = await spawnProcess('scan', { REDIS_URL, SCAN_FLUSH_INTERVAL_MS: '60000' });
      const agent = new Agent({ connections: 16, pipelining: 1 });
      let answered = 0;
      let refused = 0;
      let other = 0;
      let stop = false;
      const lane = async () => {
        while (!stop) {
          try {
            const res = await request(`${scan.origin}/${code.short_code}`, { dispatcher: agent, headers: { 'user-agent': BROWSER } });
            await res.body.dump();
            if (res.statusCode === 302) answered++;
            else other++;
          } catch {
            refused++;
            if (scan.child.exitCode !== null) return;
            await new Promise((r) => setTimeout(r, 5));
          }
        }
      };
      const lanes = Array.from({ length: 16 }, lane);
      await eventually(async () => answered >= 300, 30_000, '300 scans answered');
      const signalledAt = answered;
      const code0 = scan.stop('SIGTERM');
      const exitCode = await code0;
      stop = true;
      await Promise.all(lanes);
      await agent.close();
      expect(exitCode).toBe(0);
      expect(scan.output()).toContain('scan stopping (SIGTERM)');
      expect(other).toBe(0);
      expect(answered).toBeGreaterThanOrEqual(signalledAt);

      // Every answered scan reached the stream: a worker stores exactly that many.
      worker = await startWorker({ REDIS_URL });
      const count = await eventually(
        async () => {
          const n = (await http(api.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).body.scan_count as number;
          return n >= answered && n;
        },
        30_000,
        `${answered} scans stored`,
      ).catch(async (err: Error) => {
        const n = (await http(api.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).body.scan_count;
        throw new Error(`${err.message}: ${n} stored, ${answered} answered, ${refused} refused\n${scan.output()}`);
      });
      expect(count).toBe(answered);
    } finally {
      await worker?.close();
      await api.close();
    }
  }, 180_000);

  it('worker: a batch in progress finishes before the process exits 0, without duplicates', async () => {
    const REDIS_URL = isolatedRedisUrl(6);
    const api = await startApi({ REDIS_URL });
    try {
      const org = await createOrg(api, { plan: 'agency' });
      const worker = await spawnProcess('worker', { REDIS_URL });
      // The most a batch holds: on a quiet machine one worker creates 150 codes before the test has seen the batch start.
      const items = Array.from({ length: 1000 }, (_, i) => ({ name: `item ${i}`, target: { type: 'url', destination: `https://example.com/b/${i}` } }));
      const batch = (await http(api.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { items } })).body;
      expect(batch.id).toBeDefined();
      const progress = async () => (await http(api.origin, 'GET', `/v1/batches/${batch.id}`, { key: org.apiKey })).body;
      // Read straight from the database every 10 ms (an API round trip can come late on a loaded machine), and SIGTERM
      // at once: the count read just before the signal proves the batch was mid-way when it arrived.
      let seen = 0;
      for (const until = Date.now() + 60_000; seen === 0; ) {
        const [row] = await db(api).getConnection().execute<{ completed_count: number }[]>('select completed_count from batches where id = ?', [batch.id]);
        seen = Number(row.completed_count);
        if (seen === 0 && Date.now() > until) throw new Error('the batch made no progress');
        if (seen === 0) await new Promise((r) => setTimeout(r, 10));
      }
      expect(seen).toBeLessThan(1000);
      const exitCode = await worker.stop('SIGTERM');
      expect(exitCode).toBe(0);
      expect(worker.output()).toContain('worker stopping (SIGTERM)');
      const after = await progress();
      expect(after).toMatchObject({ status: 'completed', completed_count: 1000, error_count: 0 });
      const [{ n }] = await db(api).getConnection().execute<{ n: string }[]>('select count(*) as n from qr_codes where organization_id = ?', [org.organizationId]);
      expect(Number(n)).toBe(1000);
    } finally {
      await api.close();
    }
  }, 180_000);

  it('api: a request in flight is answered, new connections are refused, exit 0', async () => {
    const REDIS_URL = isolatedRedisUrl(6);
    const setup = await startApi({ REDIS_URL });
    const rx = await new TestReceiver().start();
    try {
      const org: TestOrg = await createOrg(setup, { plan: 'pro' });
      const api = await spawnProcess('api', { REDIS_URL });
      const endpoint = (await http(api.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: rx.url('/slow'), events: ['qr.created'] } })).body;
      // The test ping waits on the receiver, which answers 2 s after SIGTERM was sent.
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      rx.reply = async () => {
        await released;
        return { status: 200, body: 'ok' };
      };
      const arrived = new Promise<void>((r) => (rx.onRequest = () => r()));
      const ping = http(api.origin, 'POST', `/v1/webhooks/${endpoint.id}/test`, { key: org.apiKey });
      await arrived;
      const exited = api.stop('SIGTERM');
      await eventually(async () => api.output().includes('api stopping (SIGTERM)'), 10_000, 'stopping line');
      await new Promise((r) => setTimeout(r, 300));
      await expect(fetch(`${api.origin}/health/live`)).rejects.toThrow();
      setTimeout(release, 2000);
      const answer = await ping;
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe('succeeded');
      expect(await exited).toBe(0);
    } finally {
      await rx.stop();
      await setup.close();
    }
  }, 180_000);
});
