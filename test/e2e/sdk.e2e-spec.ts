import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Scanlink, ScanlinkError, ScanlinkSignatureError, verifyWebhook, type QrCode } from '../../sdk/src';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { DashboardAuthService } from '../../src/modules/tokens/dashboard-auth.service';
import { TestReceiver, waitFor } from '../../src/modules/webhooks/testing/receiver';
import { createOrg, http, startApi, startWorker, TEST_WORKER_WEBHOOKS, TestApp, TestOrg } from '../setup/app';
import { assertMatchesOpenApi } from '../setup/openapi-check';
import { zipEntries } from '../setup/zip';

interface Sent {
  method: string;
  path: string;
  idempotencyKey: string | null;
}

/**
 * The SDK (sdk/src) against the real api and worker. Every answer it receives is also checked against the served
 * OpenAPI document, as the suite's own HTTP helper does.
 */
describe('@scanlink/sdk', () => {
  let api: TestApp;
  let worker: TestApp;
  let org: TestOrg;
  let sent: Sent[];
  /** Answers to give instead of the api's, in order (a thrown Error is a network failure). */
  let injected: Array<Response | Error>;

  /** A fetch that records each attempt, plays injected answers first, and checks every real answer. */
  const recordingFetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    sent.push({ method: request.method, path: url.pathname + url.search, idempotencyKey: request.headers.get('idempotency-key') });
    const next = injected.shift();
    if (next instanceof Error) throw next;
    if (next) return next;
    const res = await fetch(request);
    const type = res.headers.get('content-type') ?? '';
    await assertMatchesOpenApi(api.origin, request.method, url.pathname + url.search, res.status, type.includes('json') ? await res.clone().json() : undefined, type);
    return res;
  };
  const client = (opts: ConstructorParameters<typeof Scanlink>[0] = {}) => new Scanlink({ apiKey: org.apiKey, baseUrl: `${api.origin}/v1`, fetch: recordingFetch, ...opts });

  beforeAll(async () => {
    api = await startApi(TEST_WORKER_WEBHOOKS);
    worker = await startWorker();
    org = await createOrg(api, { plan: 'pro' });
  });
  beforeEach(() => {
    sent = [];
    injected = [];
  });
  afterAll(async () => {
    await worker?.close();
    await api?.close();
  });

  it('is generated from the document the api serves', async () => {
    const served = (await http(api.origin, 'GET', '/docs/openapi.json')).body;
    delete served.servers;
    expect(served).toEqual(JSON.parse(readFileSync(join(__dirname, '../../sdk/openapi.json'), 'utf8')));
  });

  it('runs the request examples of the document, as Swagger UI\'s "Try it out" sends them', async () => {
    const doc = (await http(api.origin, 'GET', '/docs/openapi.json')).body;
    const examples = (path: string, method: string): Record<string, { value: Record<string, unknown> }> => doc.paths[path][method].requestBody.content['application/json'].examples;
    const own = await createOrg(api, { plan: 'pro' });
    const send = async (method: string, path: string, body: unknown, status: number, what: string) => {
      const res = await http(api.origin, method, path, { key: own.apiKey, body });
      if (res.status !== status) throw new Error(`${what}: ${method} ${path} answered ${res.status} ${res.text.slice(0, 300)}`);
      return res.body;
    };
    // A fixed GTIN is one code per host: the dynamic GS1 example runs with a fresh one (the rest as written).
    const fresh = (v: Record<string, unknown>) => (v.type === 'gs1' && v.mode === 'dynamic' ? { ...v, primary_key: { ai: '01', value: randomGtin() } } : v);
    for (const [name, ex] of Object.entries(examples('/v1/qr-codes', 'post'))) await send('POST', '/v1/qr-codes', fresh(ex.value), 201, `create example ${name}`);
    const link = await send('POST', '/v1/qr-codes', { target: { type: 'url', destination: 'https://example.com/a' } }, 201, 'a link code');
    const gs1 = await send('POST', '/v1/qr-codes', fresh(examples('/v1/qr-codes', 'post').gs1.value), 201, 'a GS1 code');
    for (const [name, ex] of Object.entries(examples('/v1/qr-codes/{id}', 'patch'))) {
      await send('PATCH', `/v1/qr-codes/${name === 'gs1' ? gs1.id : link.id}`, ex.value, 200, `update example ${name}`);
    }
    for (const [name, ex] of Object.entries(examples('/v1/batches', 'post'))) await send('POST', '/v1/batches', ex.value, 202, `batch example ${name}`);
  });

  it('creates, reads, updates and deletes a code', async () => {
    const scanlink = client();
    const created: QrCode = await scanlink.qrCodes.create({ name: 'SDK menu', target: { type: 'url', destination: 'https://example.com/menu' } });
    expect(created).toMatchObject({ object: 'qr_code', kind: 'dynamic', name: 'SDK menu', target: { destination: 'https://example.com/menu' } });
    expect((await scanlink.qrCodes.get(created.id)).id).toBe(created.id);
    const updated = await scanlink.qrCodes.update(created.id, { name: 'SDK menu (new)', target: { destination: 'https://example.com/menu-2' } });
    expect(updated).toMatchObject({ name: 'SDK menu (new)', short_code: created.short_code, target: { destination: 'https://example.com/menu-2' } });
    const png = await scanlink.qrCodes.download(created.id, { format: 'png', size: 300 });
    expect(Buffer.from(png).subarray(1, 4).toString()).toBe('PNG');
    expect(await scanlink.qrCodes.delete(created.id)).toEqual({ id: created.id, object: 'qr_code', deleted: true });
    expect((await scanlink.qrCodes.restore(created.id)).id).toBe(created.id);
    expect(await scanlink.me()).toMatchObject({ object: 'account', organization_id: org.organizationId });
    // One Idempotency-Key per POST, none on other methods.
    const posts = sent.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(new Set(posts.map((p) => p.idempotencyKey)).size).toBe(2);
    expect(sent.filter((s) => s.method !== 'POST').every((s) => s.idempotencyKey === null)).toBe(true);
    // Every type takes a pre-encoded destination instead of its fields (the spec's Target rule); the types say so too
    // (npm run typecheck compiles this file).
    const wifi = await scanlink.qrCodes.create({ type: 'static', target: { type: 'wifi', destination: 'WIFI:T:WPA;S:cafe;P:password123;;' } });
    expect(wifi.target).toMatchObject({ type: 'wifi', ssid: 'cafe', encryption: 'WPA' });
    const text = await scanlink.qrCodes.create({ type: 'static', target: { type: 'text', destination: 'hello' } });
    expect(text.target).toMatchObject({ type: 'text', text: 'hello' });
  });

  it('lists every item across pages with for await; limit is the page size', async () => {
    const own = await createOrg(api, { plan: 'pro' });
    const scanlink = client({ apiKey: own.apiKey });
    const folder = await scanlink.folders.create({ name: 'Paged' });
    const names = Array.from({ length: 7 }, (_, i) => `Code ${i}`);
    for (const name of names) await scanlink.qrCodes.create({ name, folder_id: folder.id, target: { type: 'text', text: name } });
    await scanlink.qrCodes.create({ name: 'elsewhere', target: { type: 'text', text: 'x' } });
    sent = [];
    const seen: string[] = [];
    for await (const code of scanlink.qrCodes.list({ folder_id: folder.id, limit: 2, sort: 'name', order: 'asc' })) seen.push(code.name);
    expect(seen).toEqual(names);
    expect(sent.map((s) => s.path.split('?')[0])).toEqual(Array(4).fill('/v1/qr-codes'));
    expect(sent.every((s) => new URL(s.path, api.origin).searchParams.get('limit') === '2')).toBe(true);
    expect((await scanlink.folders.list().toArray()).map((f) => f.name)).toEqual(['Paged']);
    // toArray() has no hidden cap; toArray(n) stops after n items, reading only the pages it needs.
    sent = [];
    expect((await scanlink.qrCodes.list({ folder_id: folder.id, limit: 2, sort: 'name', order: 'asc' }).toArray(3)).map((c) => c.name)).toEqual(names.slice(0, 3));
    expect(sent).toHaveLength(2);
    expect(await scanlink.qrCodes.list({ folder_id: folder.id, limit: 2 }).toArray()).toHaveLength(7);
    // A NaN option (Number(process.env.UNSET)) is refused, not an endless retry loop.
    expect(() => client({ maxRetries: Number(undefined) })).toThrow(RangeError);
    // An empty list iterates nothing, in one request.
    sent = [];
    expect(await scanlink.qrCodes.list({ status: 'trashed' }).toArray()).toEqual([]);
    expect(sent).toHaveLength(1);
  });

  it('throws ScanlinkError with status, code, field and request id, and never retries other 4xx', async () => {
    const scanlink = client();
    const notFound = await scanlink.qrCodes.get('qr_doesNotExist000000000').catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(ScanlinkError);
    expect(notFound).toMatchObject({ status: 404, code: 'not_found', requestId: expect.stringMatching(/^req_/) });
    const invalid = (await scanlink.qrCodes.create({ target: { type: 'url', destination: 'ftp://example.com' } }).catch((e: unknown) => e)) as ScanlinkError;
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', field: 'target.destination' });
    expect(invalid.message).toMatch(/http/);
    const scoped = await createOrg(api, { plan: 'pro', scopes: ['qr:read'] });
    expect(await client({ apiKey: scoped.apiKey }).folders.create({ name: 'x' }).catch((e: ScanlinkError) => [e.status, e.code])).toEqual([403, 'insufficient_scope']);
    expect(await client({ apiKey: 'qr_live_wrong' }).me().catch((e: ScanlinkError) => [e.status, e.code])).toEqual([401, 'unauthorized']);
    expect(sent).toHaveLength(4); // one attempt each
  });

  it('refuses an empty, "." or ".." id before sending anything, rather than reading another URL', async () => {
    const scanlink = client();
    for (const call of [() => scanlink.qrCodes.get(''), () => scanlink.qrCodes.get('.'), () => scanlink.webhooks.get('..'), () => scanlink.folders.delete(''), () => scanlink.analytics.get('..', {})]) {
      expect(await call().catch((e: ScanlinkError) => [e.constructor.name, e.status, e.code, e.field])).toEqual(['ScanlinkError', 0, 'invalid_request', 'id']);
    }
    expect(sent).toHaveLength(0);
  });

  it('uses the session token for API key management and the API key elsewhere when given both', async () => {
    const token = await api.app.get(DashboardAuthService).mint({ organizationId: org.organizationId, email: 'o@example.com', emailVerified: true, expiresInSeconds: 600 });
    const both = client({ token });
    expect((await both.tokens.list().toArray()).length).toBeGreaterThan(0);
    expect((await both.me()).key_prefix).not.toBe('');
    expect(sent.map((s) => s.path.split('?')[0])).toEqual(['/v1/tokens', '/v1/me']);
  });

  it('does not retry a request the caller cancelled: the abort is thrown at once', async () => {
    injected = [new Response('{}', { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '5' } })];
    const started = Date.now();
    const err = await client({ maxRetries: 3 })
      .api.GET('/v1/me', { signal: AbortSignal.timeout(300) })
      .catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(err).not.toBeInstanceOf(ScanlinkError);
    expect((err as Error).name).toMatch(/AbortError|TimeoutError/);
    expect(sent).toHaveLength(1);
  });

  it('refuses to send a request without an API key or token', async () => {
    const anonymous = new Scanlink({ baseUrl: `${api.origin}/v1`, fetch: recordingFetch });
    const err = (await anonymous.qrCodes.list().toArray().catch((e: unknown) => e)) as ScanlinkError;
    expect(err).toBeInstanceOf(ScanlinkError);
    expect(err.code).toBe('missing_credentials');
    expect(err.message).toMatch(/apiKey/);
    expect(sent).toHaveLength(0);
  });

  it('retries 503, 429 and network errors with the same Idempotency-Key, honouring Retry-After, and creates once', async () => {
    const scanlink = client({ maxRetries: 3 });
    const busy = (status: number, retryAfter: string) =>
      new Response(JSON.stringify({ error: { code: status === 429 ? 'rate_limited' : 'service_unavailable', message: 'busy', request_id: 'req_injected' } }), {
        status,
        headers: { 'content-type': 'application/json', 'retry-after': retryAfter },
      });
    injected = [busy(503, '0'), new TypeError('fetch failed'), busy(429, '1')];
    const started = Date.now();
    const code = await scanlink.qrCodes.create({ name: 'retried', target: { type: 'text', text: 'once' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000); // the 429's Retry-After: 1
    expect(sent).toHaveLength(4);
    expect(new Set(sent.map((s) => s.idempotencyKey)).size).toBe(1);
    expect((await scanlink.qrCodes.list({ search: 'retried' }).toArray()).map((c) => c.id)).toEqual([code.id]);

    // Retries run out: the last answer is thrown.
    sent = [];
    injected = [busy(503, '0'), busy(503, '0'), busy(503, '0'), busy(503, '0')];
    expect(await scanlink.me().catch((e: ScanlinkError) => [e.status, e.code, e.retryAfter])).toEqual([503, 'service_unavailable', 0]);
    expect(sent).toHaveLength(4);
    // Network errors only: a connection_error carrying the cause.
    sent = [];
    injected = [new TypeError('fetch failed'), new TypeError('fetch failed')];
    expect(await client({ maxRetries: 1 }).me().catch((e: ScanlinkError) => [e.status, e.code])).toEqual([0, 'connection_error']);
    expect(sent).toHaveLength(2);
  });

  it('does not wait out a Retry-After longer than maxRetryDelayMs: the 429 is thrown at once', async () => {
    injected = [
      new Response(JSON.stringify({ error: { code: 'quota_exceeded', message: 'Monthly quota used up', request_id: 'req_injected', limit: 50 } }), {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '86400', 'request-id': 'req_injected' },
      }),
    ];
    const started = Date.now();
    const err = (await client({ maxRetryDelayMs: 1000 }).me().catch((e: unknown) => e)) as ScanlinkError;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toMatchObject({ status: 429, code: 'quota_exceeded', retryAfter: 86400, requestId: 'req_injected', raw: { limit: 50 } });
    expect(sent).toHaveLength(1);
  });

  it('runs a batch to completion and downloads its ZIP', async () => {
    const scanlink = client();
    const accepted = await scanlink.batches.create({
      items: [
        { name: 'Table 1', target: { type: 'url', destination: 'https://example.com/t/1' } },
        { name: 'Table 2', target: { destination: 'https://example.com/t/2' } },
        { name: 'broken', target: { type: 'url', destination: 'ftp://example.com/t/3' } },
      ],
    });
    expect(accepted).toMatchObject({ object: 'batch', status: 'processing', total_count: 3 });
    const done = await scanlink.batches.waitForCompletion(accepted.id, { intervalMs: 100, timeoutMs: 60_000 });
    expect(done).toMatchObject({ status: 'completed', completed_count: 2, error_count: 1 });
    expect(done.items.map((i) => i.status)).toEqual(['completed', 'completed', 'failed']);
    const zip = Buffer.from(await scanlink.batches.download(accepted.id, { format: 'png', size: 200 }));
    expect(zipEntries(zip).filter((e) => e.name.endsWith('.png'))).toHaveLength(2);
    expect((await scanlink.batches.list({ limit: 1 }).toArray()).map((b) => b.id)).toContain(accepted.id);
  });

  it('verifies a real webhook delivery, and refuses a wrong secret, a tampered body and an old timestamp', async () => {
    const rx = await new TestReceiver().start();
    try {
      const scanlink = client();
      const endpoint = await scanlink.webhooks.create({ url: rx.url('/sdk'), events: ['qr.created', 'ping'] });
      expect(endpoint.secret).toMatch(/^whsec_/);
      const code = await scanlink.qrCodes.create({ name: 'hooked', target: { type: 'text', text: 'hi' } });
      const delivery = await waitFor(() => rx.forPath('/sdk').find((r) => r.headers['scanlink-event-type'] === 'qr.created'), 'qr.created delivery', 30_000);
      const header = delivery.headers['scanlink-signature'] as string;

      const event = verifyWebhook(delivery.body, header, endpoint.secret);
      expect(event).toMatchObject({ object: 'event', type: 'qr.created', data: { id: code.id } });
      expect(verifyWebhook(Buffer.from(delivery.body), header, endpoint.secret).id).toBe(event.id);

      const refusal = (f: () => unknown) => {
        try {
          f();
        } catch (err) {
          expect(err).toBeInstanceOf(ScanlinkSignatureError);
          return (err as ScanlinkSignatureError).reason;
        }
        throw new Error('accepted');
      };
      expect(refusal(() => verifyWebhook(delivery.body, header, 'whsec_wrongSecret00000000000000000000'))).toBe('signature_mismatch');
      expect(refusal(() => verifyWebhook(delivery.body.replace('hooked', 'Hooked'), header, endpoint.secret))).toBe('signature_mismatch');
      const t = Number(/t=(\d+)/.exec(header)![1]);
      expect(refusal(() => verifyWebhook(delivery.body, header, endpoint.secret, { now: t + 301 }))).toBe('timestamp_out_of_tolerance');
      expect(verifyWebhook(delivery.body, header, endpoint.secret, { now: t + 301, toleranceSeconds: 600 }).id).toBe(event.id);
      // A NaN tolerance would accept any timestamp; a parsed body cannot be verified: both say so.
      expect(() => verifyWebhook(delivery.body, header, endpoint.secret, { now: t + 301, toleranceSeconds: Number(undefined) })).toThrow(RangeError);
      expect(() => verifyWebhook(JSON.parse(delivery.body) as never, header, endpoint.secret)).toThrow(/raw body/);
      expect(refusal(() => verifyWebhook(delivery.body, undefined, endpoint.secret))).toBe('missing_header');
      expect(refusal(() => verifyWebhook(delivery.body, 'v1=abc', endpoint.secret))).toBe('malformed_header');
      // A validly signed body that is not an event object.
      const signed = (body: string) => {
        const ts = Math.floor(Date.now() / 1000);
        return `t=${ts},v1=${createHmac('sha256', endpoint.secret).update(`${ts}.${body}`).digest('hex')}`;
      };
      for (const body of ['null', '5', '[1]']) expect([body, refusal(() => verifyWebhook(body, signed(body), endpoint.secret))]).toEqual([body, 'invalid_body']);

      // A test ping through the SDK, then its delivery record in the endpoint's deliveries.
      const ping = await scanlink.webhooks.test(endpoint.id);
      expect(ping).toMatchObject({ object: 'webhook_delivery', event_type: 'ping', status: 'succeeded', status_code: 200 });
      const pinged = rx.forPath('/sdk').find((r) => r.headers['scanlink-event-type'] === 'ping')!;
      expect(verifyWebhook(pinged.body, pinged.headers['scanlink-signature'] as string, endpoint.secret).data).toEqual({ webhook_endpoint_id: endpoint.id });
      expect((await scanlink.webhooks.deliveries(endpoint.id, { limit: 1 }).toArray()).map((d) => d.event_type).sort()).toEqual(['ping', 'qr.created']);
      expect((await scanlink.events.get(event.id)).type).toBe('qr.created');
    } finally {
      await rx.stop();
    }
  });
});
