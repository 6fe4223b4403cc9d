import { AsyncLocalStorage } from 'node:async_hooks';
import Redis from 'ioredis';
import { SCAN_NUMBER_KEY_PREFIX } from '../../src/common/redis/scan-number-key';
import { createCode, createOrg, db, http, startApi, startScan, TestApp } from '../setup/app';

/**
 * The scan process keeps Node's async hooks off (docs/scan-host.md "Async hooks stay off"): the first run() of any
 * AsyncLocalStorage turns them on for the life of the process, and every redirect pays for them afterwards. None of
 * its routes may enter one: not health probes and metrics scrapes, which arrive every few seconds, nor a lead-form
 * post. The api process does enter one (MikroORM's request context), which shows that this test sees it happen.
 */
describe('scan host: no AsyncLocalStorage on its routes', () => {
  let scan: TestApp;
  let shortCode: string;
  let locked: string;
  let limited: { id: string; short_code: string };
  let form: { id: string; short_code: string };
  let entered: jest.SpyInstance[];
  const formTarget = { type: 'form', title: 'Hooks', fields: [{ name: 'email', label: 'E-mail', type: 'email', required: true }], consent_text: 'I agree.' };

  beforeAll(async () => {
    const api = await startApi();
    try {
      const org = await createOrg(api, { plan: 'pro' });
      shortCode = (await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/hooks' } })).short_code;
      locked = (await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/locked' }, password: 'hooks 2026' })).short_code;
      // A scan limit: its scans keep a scan number, which the process syncs through Redis every 250 ms.
      limited = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/limited' }, max_scans: 1000 });
      form = await createCode(api, org, { target: formTarget });
      // A listener, so that a post writes its lead.captured event (no delivery is attempted: no worker runs here).
      expect((await http(api.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: 'https://hooks.example.com/leads', events: ['lead.captured'] } })).status).toBe(201);
    } finally {
      await api.close(); // nothing but the scan process runs in this test process from here on
    }
    scan = await startScan();
  });
  afterAll(async () => {
    await scan?.close();
  });
  beforeEach(() => {
    entered = [jest.spyOn(AsyncLocalStorage.prototype, 'run'), jest.spyOn(AsyncLocalStorage.prototype, 'enterWith')];
  });
  afterEach(() => {
    for (const spy of entered) spy.mockRestore();
  });
  const calls = () => entered.reduce((n, spy) => n + spy.mock.calls.length, 0);
  const formPost = { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.61' };

  it('answers health, metrics, scans, unlock, files, images, the TLS ask and a lead-form post without entering one', async () => {
    const answers: Record<string, number> = {};
    const ask = async (method: string, path: string, body?: string) => {
      const res = await http(scan.origin, method, path, body === undefined ? {} : { rawBody: body, headers: formPost });
      answers[`${method} ${path}`] = res.status;
    };
    await ask('GET', '/health/live');
    await ask('GET', '/health/ready');
    await ask('GET', '/health');
    await ask('GET', '/metrics');
    await ask('GET', `/${shortCode}`);
    await ask('HEAD', `/${shortCode}`);
    await ask('GET', `/${limited.short_code}`);
    await ask('GET', `/${locked}`);
    await ask('POST', `/${locked}/unlock`, 'password=wrong');
    await ask('GET', `/${shortCode}/file`);
    await ask('GET', '/zzzzzzz');
    await ask('GET', '/images/img_nosuchimage.png');
    await ask('GET', '/.well-known/scanlink/tls-allowed?domain=nowhere.example');
    await ask('POST', `/${form.short_code}`, 'email=ada%40example.com&consent=yes');
    await ask('POST', `/${shortCode}`, 'email=ada%40example.com&consent=yes');
    expect(answers).toEqual({
      'GET /health/live': 200,
      'GET /health/ready': 200,
      'GET /health': 200,
      'GET /metrics': 200,
      [`GET /${shortCode}`]: 302,
      [`HEAD /${shortCode}`]: 302,
      [`GET /${limited.short_code}`]: 302,
      [`GET /${locked}`]: 200, // the password page
      [`POST /${locked}/unlock`]: 200, // the page again, "wrong password"
      [`GET /${shortCode}/file`]: 404,
      'GET /zzzzzzz': 404,
      'GET /images/img_nosuchimage.png': 404,
      'GET /.well-known/scanlink/tls-allowed?domain=nowhere.example': 404,
      [`POST /${form.short_code}`]: 200, // the thank-you page
      [`POST /${shortCode}`]: 404, // not a form
    });
    // The process's own timers had their turn too: the scan flush to Redis and the scan numbers' sync (every 250 ms).
    await new Promise((r) => setTimeout(r, 1_000));
    expect(calls()).toBe(0);
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      // The sync did run: the code's shared scan number exists (0: this client sends no browser's user agent).
      expect(await redis.get(`${SCAN_NUMBER_KEY_PREFIX}${limited.id}`)).toBe('0');
    } finally {
      redis.disconnect();
    }
    // The lead went in whole, in the transaction the post opened without one: counted on the code, stored, and its
    // lead.captured event written.
    const [counted] = await db(scan).execute<{ lead_count: number }[]>('select lead_count from qr_codes where id = ?', [form.id]);
    const leads = await db(scan).execute<{ fields: { email: string } }[]>('select fields from leads where qr_code_id = ?', [form.id]);
    const events = await db(scan).execute<{ n: string }[]>(`select count(*) as n from events where type = 'lead.captured' and payload::jsonb -> 'data' ->> 'qr_code_id' = ?`, [form.id]);
    expect({ lead_count: counted.lead_count, leads: leads.map((l) => l.fields.email), events: Number(events[0].n) }).toEqual({ lead_count: 1, leads: ['ada@example.com'], events: 1 });
  });

  it('the api process enters one (MikroORM\'s request context): what the test above would see', async () => {
    const api = await startApi();
    try {
      expect((await http(api.origin, 'GET', '/health/ready')).status).toBe(200);
      expect(calls()).toBeGreaterThan(0);
    } finally {
      await api.close();
    }
  });
});
