import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { db, http, isolatedRedisUrl, startApi, startScan, startWorker, TestApp } from '../setup/app';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/lib/services') as {
  freePort(): Promise<number>;
  startRedis(o: { port: number; dir: string; persistent: boolean }): Promise<{ url: string; stop(): Promise<void> }>;
};

const READY = { status: 'ok', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok' } };

/** Liveness and readiness on the three processes (docs/operations.md "Health"). */
describe('health: live and ready', () => {
  let api: TestApp;
  let scan: TestApp;
  let worker: TestApp;

  beforeAll(async () => {
    api = await startApi();
    scan = await startScan({ REDIS_URL: isolatedRedisUrl(8) });
    worker = await startWorker({ REDIS_URL: isolatedRedisUrl(8) });
  });
  afterAll(async () => {
    await Promise.all([api?.close(), scan?.close(), worker?.close()]);
  });

  it('answers live and ready on api, scan and worker; /health is the ready check', async () => {
    for (const { origin } of [api, scan, worker]) {
      const live = await http(origin, 'GET', '/health/live');
      expect(live.status).toBe(200);
      expect(live.body).toEqual({ status: 'ok' });
      for (const path of ['/health/ready', '/health']) {
        const ready = await http(origin, 'GET', path);
        expect({ origin, path, status: ready.status, body: ready.body }).toEqual({ origin, path, status: 200, body: READY });
        expect(ready.headers.get('request-id')).toMatch(/^req_/);
      }
    }
  });

  it('the worker serves health and metrics only', async () => {
    expect((await http(worker.origin, 'GET', '/metrics')).status).toBe(200);
    for (const path of ['/v1/me', '/', '/docs', '/abcdefg']) {
      const res = await http(worker.origin, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('documents /health, /health/live and /health/ready in the OpenAPI document, without authentication', async () => {
    const doc = (await http(api.origin, 'GET', '/docs/openapi.json')).body;
    for (const path of ['/health', '/health/live', '/health/ready']) {
      expect(doc.paths[path].get.security).toEqual([]);
      expect(doc.paths[path].get.responses['200']).toBeDefined();
    }
    expect(doc.paths['/health/ready'].get.responses['503'].content['application/json'].schema.$ref).toBe('#/components/schemas/HealthDto');
    expect(doc.components.schemas.HealthChecksDto.required).toEqual(expect.arrayContaining(['postgres', 'redis', 'migrations']));
    expect(doc.components.schemas.LivenessDto).toBeDefined();
  });

  describe('not ready', () => {
    let dir: string;
    let redis: { url: string; stop(): Promise<void> };
    let own: TestApp | undefined;
    let ownScan: TestApp | undefined;
    const database = `scanlink_health_${process.pid}_${Date.now()}`;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'scanlink-health-'));
      redis = await services.startRedis({ port: await services.freePort(), dir, persistent: false });
    });
    afterAll(async () => {
      await own?.close();
      await ownScan?.close();
      await redis?.stop().catch(() => undefined);
      await db(api).getConnection().execute(`drop database if exists ${database} with (force)`).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });

    it('is 503 while Redis is down (live stays 200) and ready again when it is back', async () => {
      own = await startApi({ REDIS_URL: redis.url });
      ownScan = await startScan({ REDIS_URL: redis.url });
      for (const t of [own, ownScan]) expect((await http(t.origin, 'GET', '/health/ready')).status).toBe(200);
      await redis.stop();
      for (const t of [own, ownScan]) {
        const ready = await http(t.origin, 'GET', '/health/ready');
        expect(ready.status).toBe(503);
        expect(ready.body.status).toBe('degraded');
        expect(ready.body.checks).toMatchObject({ postgres: 'ok', migrations: 'ok', redis: 'error' });
        expect((await http(t.origin, 'GET', '/health')).status).toBe(503);
        expect((await http(t.origin, 'GET', '/health/live')).status).toBe(200);
      }
      const port = Number(new URL(redis.url).port);
      redis = await services.startRedis({ port, dir, persistent: false });
      for (const t of [own, ownScan]) {
        const until = Date.now() + 20_000;
        let status = 0;
        while (Date.now() < until && (status = (await http(t.origin, 'GET', '/health/ready')).status) !== 200) await new Promise((r) => setTimeout(r, 200));
        expect(status).toBe(200);
      }
    });

    it('is 503 while migrations are pending', async () => {
      await db(api).getConnection().execute(`create database ${database}`);
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = `/${database}`;
      const fresh = await startApi({ DATABASE_URL: url.toString() });
      try {
        const ready = await http(fresh.origin, 'GET', '/health/ready');
        expect(ready.status).toBe(503);
        expect(ready.body.checks).toMatchObject({ postgres: 'ok', redis: 'ok', migrations: expect.stringMatching(/^pending: [1-9]\d*$/) });
        expect((await http(fresh.origin, 'GET', '/health/live')).status).toBe(200);
      } finally {
        await fresh.close();
      }
    });
  });
});
