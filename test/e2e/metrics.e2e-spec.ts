import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { createOrg, eventually, http, isolatedDatabase, isolatedRedisUrl, startApi, TestApp, TestOrg } from '../setup/app';
import { spawnProcess, type SpawnedProcess } from '../setup/processes';
import { hasFamily, metricValue, parseMetrics } from '../setup/prometheus';

const TOKEN = 'metrics-token-for-tests-0123456789';
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/**
 * `GET /metrics` on the three real processes (each its own registry), after a scan, a webhook delivery and a batch:
 * the counters moved on the process that did the work, labels carry route templates and never ids, and the token is
 * required. The file has a PostgreSQL database of its own: the counts are exact, and a worker sharing the database with
 * other files would also run the batches their killed workers left behind.
 */
describe('metrics on every process', () => {
  const env: Record<string, string> = { REDIS_URL: isolatedRedisUrl(9), METRICS_TOKEN: TOKEN };
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let setup: TestApp;
  let org: TestOrg;
  let api: SpawnedProcess;
  let scan: SpawnedProcess;
  let worker: SpawnedProcess;
  let rx: TestReceiver;
  const scrape = async (p: SpawnedProcess) => {
    const res = await fetch(`${p.origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  beforeAll(async () => {
    database = await isolatedDatabase('metrics');
    env.DATABASE_URL = database.url;
    setup = await startApi(env);
    org = await createOrg(setup, { plan: 'pro' });
    rx = await new TestReceiver().start();
    [api, scan, worker] = await Promise.all([spawnProcess('api', env), spawnProcess('scan', env), spawnProcess('worker', env)]);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([api?.stop(), scan?.stop(), worker?.stop()]);
    await setup?.close();
    await rx?.stop();
    await database?.drop();
  });

  it('needs the Bearer token when METRICS_TOKEN is set', async () => {
    for (const p of [api, scan, worker]) {
      for (const headers of [{} as Record<string, string>, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` }]) {
        const res = await fetch(`${p.origin}/metrics`, { headers });
        expect({ process: p.name, status: res.status }).toEqual({ process: p.name, status: 401 });
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
    }
  });

  it('counts a scan, a webhook delivery and a batch on the process that did the work', async () => {
    const key = org.apiKey;
    const code = (await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'url', destination: 'https://example.com/m' } } })).body;
    expect(code.id).toMatch(/^qr_/);
    const scanned = await fetch(`${scan.origin}/${code.short_code}`, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
    expect(scanned.status).toBe(302);
    expect((await fetch(`${scan.origin}/zzzzzzz`)).status).toBe(404);

    const endpoint = (await http(api.origin, 'POST', '/v1/webhooks', { key, body: { url: rx.url('/metrics'), events: ['batch.completed'] } })).body;
    const ping = await http(api.origin, 'POST', `/v1/webhooks/${endpoint.id}/test`, { key });
    expect(ping.body.status).toBe('succeeded');

    const batch = (await http(api.origin, 'POST', '/v1/batches', { key, body: { items: [{ target: { type: 'text', text: 'one' } }, { target: { type: 'text', text: 'two' } }] } })).body;
    await eventually(async () => (await http(api.origin, 'GET', `/v1/batches/${batch.id}`, { key })).body.status === 'completed', 60_000, 'batch completed');
    await eventually(async () => (await http(api.origin, 'GET', `/v1/qr-codes/${code.id}`, { key })).body.scan_count === 1, 30_000, 'scan stored').catch((err: Error) => {
      throw new Error(`${err.message}\nscan:\n${scan.output()}\nworker:\n${worker.output()}`);
    });

    const apiText = await scrape(api);
    expect(metricValue(apiText, 'scanlink_http_request_duration_seconds_count', { method: 'POST', route: '/v1/qr-codes', status_class: '2xx' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(apiText, 'scanlink_http_request_duration_seconds_count', { method: 'GET', route: '/v1/qr-codes/:id', status_class: '2xx' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(apiText, 'scanlink_webhook_deliveries_total', { outcome: 'succeeded' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(apiText, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(metricValue(apiText, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(hasFamily(apiText, 'nodejs_heap_size_used_bytes')).toBe(true);

    const scanText = await eventually(async () => {
      const text = await scrape(scan);
      return metricValue(text, 'scanlink_scans_flushed_total') >= 1 && text;
    }, 10_000, 'scan flushed');
    expect(metricValue(scanText, 'scanlink_scan_redirects_total', { outcome: 'redirect' })).toBe(1);
    expect(metricValue(scanText, 'scanlink_scan_redirects_total', { outcome: 'not_found' })).toBe(1);
    expect(metricValue(scanText, 'scanlink_scans_buffered_total')).toBe(1);
    expect(metricValue(scanText, 'scanlink_scans_flushed_total')).toBe(1);
    expect(metricValue(scanText, 'scanlink_scan_buffer_size')).toBe(0);
    expect(hasFamily(scanText, 'process_resident_memory_bytes')).toBe(true);

    const workerText = await eventually(async () => {
      const text = await scrape(worker);
      return metricValue(text, 'scanlink_batch_items_total', { outcome: 'completed' }) >= 2 && metricValue(text, 'scanlink_scans_ingested_total') >= 1 && text;
    }, 10_000, 'worker counters');
    expect(metricValue(workerText, 'scanlink_batch_items_total', { outcome: 'completed' })).toBe(2);
    expect(metricValue(workerText, 'scanlink_scans_ingested_total')).toBe(1);
    expect(metricValue(workerText, 'scanlink_scan_stream_backlog')).toBe(0);
    expect(metricValue(workerText, 'scanlink_queue_jobs', { queue: 'batches', state: 'completed' })).toBeGreaterThanOrEqual(1);
    for (const queue of ['batches', 'webhook-deliveries', 'maintenance']) {
      expect(parseMetrics(workerText).some((s) => s.name === 'scanlink_queue_jobs' && s.labels.queue === queue && s.labels.state === 'waiting')).toBe(true);
    }
    // The batch.completed event went out to the endpoint.
    await eventually(async () => rx.requests.some((r) => r.path === '/metrics' && r.body.includes('batch.completed')), 30_000, 'batch.completed delivered');

    // Bounded labels: route templates only, never a raw path or an id.
    for (const text of [apiText, scanText, workerText]) {
      const routes = parseMetrics(text).filter((s) => s.labels.route !== undefined).map((s) => s.labels.route);
      for (const route of routes) expect(route).toMatch(/^(unmatched|(\/(:?[a-z][a-zA-Z.-]*|v1|\*))+|\/)$/);
      expect(text).not.toContain(code.id);
      expect(text).not.toContain(code.short_code);
    }
  });
});
