import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrg, http, startApi, TestApp, TestOrg } from '../setup/app';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/lib/services') as {
  freePort(): Promise<number>;
  startRedis(o: { port: number; dir: string; persistent: boolean }): Promise<{ url: string; stop(): Promise<void> }>;
};

/**
 * The api against a Redis server of its own, stopped mid-run: what PostgreSQL alone can serve keeps working (rate
 * limits fail open), what needs Redis answers 503 service_unavailable with Retry-After and writes nothing, and the
 * api recovers when Redis is back.
 */
describe('api while Redis is down', () => {
  let dir: string;
  let port: number;
  let redis: { url: string; stop(): Promise<void> };
  let api: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scanlink-outage-'));
    port = await services.freePort();
    redis = await services.startRedis({ port, dir, persistent: false });
    api = await startApi({ REDIS_URL: redis.url });
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await api?.close();
    await redis?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves reads and plain writes, refuses Redis-bound work with 503, and recovers', async () => {
    const key = org.apiKey;
    expect((await http(api.origin, 'GET', '/v1/qr-codes', { key })).status).toBe(200);
    await redis.stop();

    const list = await http(api.origin, 'GET', '/v1/qr-codes', { key });
    expect(list.status).toBe(200);
    expect(list.headers.get('ratelimit-limit')).toBeTruthy();
    const me = await http(api.origin, 'GET', '/v1/me', { key });
    expect(me.status).toBe(200);
    const created = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'url', destination: 'https://example.com/outage' } } });
    expect(created.status).toBe(201);
    const patched = await http(api.origin, 'PATCH', `/v1/qr-codes/${created.body.id}`, { key, body: { name: 'still editable' } });
    expect(patched.status).toBe(200);

    const idem = await http(api.origin, 'POST', '/v1/folders', { key, body: { name: 'Retry me' }, headers: { 'idempotency-key': 'outage-1' } });
    expect(idem.status).toBe(503);
    expect(idem.body.error.code).toBe('service_unavailable');
    expect(Number(idem.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(idem.body.error.request_id).toBe(idem.headers.get('request-id'));

    const batch = await http(api.origin, 'POST', '/v1/batches', { key, body: { items: [{ target: { type: 'text', text: 'x' } }] } });
    expect(batch.status).toBe(503);
    expect(batch.body.error.code).toBe('service_unavailable');
    expect(batch.headers.get('retry-after')).toBeTruthy();

    // Nothing half-written.
    expect((await http(api.origin, 'GET', '/v1/folders', { key })).body.data).toHaveLength(0);
    expect((await http(api.origin, 'GET', '/v1/batches', { key })).body.data).toHaveLength(0);

    redis = await services.startRedis({ port, dir, persistent: false });
    const until = Date.now() + 15_000;
    let again = await http(api.origin, 'POST', '/v1/folders', { key, body: { name: 'Retry me' }, headers: { 'idempotency-key': 'outage-1' } });
    while (again.status === 503 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 200));
      again = await http(api.origin, 'POST', '/v1/folders', { key, body: { name: 'Retry me' }, headers: { 'idempotency-key': 'outage-1' } });
    }
    expect(again.status).toBe(201);
  });
});
