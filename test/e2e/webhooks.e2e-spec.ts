import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { ApiException } from '../../src/common/errors/api.exception';
import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { WebhookSender } from '../../src/modules/webhooks/webhook-sender';
import { validateWebhookUrl } from '../../src/modules/webhooks/webhook-url';
import { WebhooksService } from '../../src/modules/webhooks/webhooks.service';
import { createOrg, http, startApi, TestApp, TestOrg } from '../setup/app';

const ENDPOINT_KEYS = [
  'consecutive_failures',
  'created_at',
  'description',
  'disabled_reason',
  'events',
  'id',
  'object',
  'source',
  'status',
  'updated_at',
  'url',
];
const DELIVERY_KEYS = [
  'attempts',
  'created_at',
  'endpoint_id',
  'error',
  'event_id',
  'event_type',
  'id',
  'latency_ms',
  'next_attempt_at',
  'object',
  'response_body',
  'status',
  'status_code',
  'updated_at',
];

describe('Webhook endpoints (/v1/webhooks)', () => {
  let t: TestApp;
  let rx: TestReceiver;
  let org: TestOrg;

  beforeAll(async () => {
    rx = await new TestReceiver().start();
    t = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_DELAYS: '60000' });
    org = await createOrg(t, { plan: 'pro' });
  });
  afterAll(async () => {
    await t.close();
    await rx.stop();
  });

  const create = (key: string, body: object) => http(t.origin, 'POST', '/v1/webhooks', { key, body });

  describe('POST /v1/webhooks', () => {
    it('creates an endpoint and returns its secret once', async () => {
      const res = await create(org.apiKey, { url: rx.url('/create'), events: ['qr.created', 'qr.scanned'], description: 'CRM' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
      expect(res.body).toMatchObject({
        object: 'webhook_endpoint',
        url: rx.url('/create'),
        description: 'CRM',
        events: ['qr.created', 'qr.scanned'],
        status: 'enabled',
        disabled_reason: null,
        source: 'api',
        consecutive_failures: 0,
      });
      expect(res.body.id).toMatch(/^we_[0-9A-Za-z]{16,}$/);
      expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
      expect(res.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const got = await http(t.origin, 'GET', `/v1/webhooks/${res.body.id}`, { key: org.apiKey });
      expect(got.status).toBe(200);
      expect(Object.keys(got.body).sort()).toEqual(ENDPOINT_KEYS);
      expect(got.text).not.toContain('whsec_');
      const { secret: _secret, ...record } = res.body;
      expect(got.body).toEqual(record);
    });

    it('collapses ["*", …] to ["*"] and removes duplicate types', async () => {
      const all = await create(org.apiKey, { url: rx.url('/all'), events: ['qr.created', '*'] });
      expect(all.status).toBe(201);
      expect(all.body.events).toEqual(['*']);
      const dup = await create(org.apiKey, { url: rx.url('/dup'), events: ['qr.updated', 'qr.updated', 'lead.captured'], source: 'zapier' });
      expect(dup.body.events).toEqual(['qr.updated', 'lead.captured']);
      expect(dup.body.source).toBe('zapier');
      // More entries than there are event types, all duplicates: still one type.
      const many = await create(org.apiKey, { url: rx.url('/many'), events: Array.from({ length: 12 }, () => 'qr.created') });
      expect([many.status, many.body.events]).toEqual([201, ['qr.created']]);
    });

    it.each([
      [{ url: 'https://example.com/h', events: ['qr.exploded'] }, 'events'],
      [{ url: 'https://example.com/h', events: [] }, 'events'],
      [{ url: 'https://example.com/h', events: 'qr.created' }, 'events'],
      [{ url: 'https://example.com/h' }, 'events'],
      [{ events: ['*'] }, 'url'],
      [{ url: 'https://example.com/h', events: ['*'], source: 'ifttt' }, 'source'],
      [{ url: 'https://example.com/h', events: ['*'], secret: 'whsec_mine' }, 'secret'],
      [{ url: 'https://example.com/h', events: ['*'], description: 'x'.repeat(501) }, 'description'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
    ])('refuses %j with 400 naming %s', async (body, field) => {
      const res = await create(org.apiKey, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.field).toBe(field);
    });

    it.each([
      ['http://example.com/hook', /https/],
      ['https://localhost/hook', /not a public host/],
      ['https://127.0.0.2/hook', /not a public address/],
      ['https://10.0.0.1/hook', /not a public address/],
      ['https://192.168.1.20/hook', /not a public address/],
      ['https://169.254.169.254/latest/meta-data/', /not a public address/],
      ['https://[::1]/hook', /not a public address/],
      ['https://[::ffff:127.0.0.1]/hook', /not a public address/],
      ['https://metadata.google.internal/computeMetadata/v1/', /not a public host/],
      ['https://metadata.google.internal./computeMetadata/v1/', /not a public host/],
      ['https://printer.local./hook', /not a public host/],
      ['https://localhost../hook', /not a public host/],
      [' https://example.com/hook ', /spaces/],
      ['https://user:pass@example.com/hook', /credentials/],
    ])('refuses the unsafe URL %s (400 on url)', async (url, message) => {
      const res = await create(org.apiKey, { url, events: ['*'] });
      expect(res.status).toBe(400);
      expect(res.body.error.field).toBe('url');
      expect(res.body.error.message).toMatch(message);
    });

    it('refuses a hostname that resolves to a loopback or private address', async () => {
      const service = t.app.get(WebhooksService);
      const original = service.lookup;
      service.lookup = async (host) => (host === 'rebind.example' ? [{ address: '93.184.216.34' }, { address: '127.0.0.1' }] : original(host));
      try {
        const res = await create(org.apiKey, { url: 'https://rebind.example/hook', events: ['*'] });
        expect(res.status).toBe(400);
        expect(res.body.error.field).toBe('url');
        expect(res.body.error.message).toMatch(/resolves to a non-public address/);
      } finally {
        service.lookup = original;
      }
    });

    it('refuses 127.0.0.1 when it is not allow-listed, at creation and again at connect time', async () => {
      await expect(validateWebhookUrl(rx.url('/x'), [], async () => [])).rejects.toBeInstanceOf(ApiException);
      await expect(validateWebhookUrl(`https://127.0.0.1:${rx.port}/x`, [], async () => [])).rejects.toThrow(/not a public address/);
      // Connect time: even a URL that slipped past validation never reaches a loopback listener.
      const sender = new WebhookSender([]);
      try {
        const before = rx.requests.length;
        const outcome = await sender.send(rx.url('/ssrf'), '{}', {});
        expect(outcome.ok).toBe(false);
        expect(outcome.statusCode).toBeNull();
        expect(outcome.error).toMatch(/^Blocked: /);
        expect(rx.requests.length).toBe(before);
      } finally {
        await sender.close();
      }
    });

    it('allows 10 endpoints with source api and 50 per integration source', async () => {
      const o = await createOrg(t, { plan: 'plus' });
      for (let i = 0; i < 10; i++) expect((await create(o.apiKey, { url: `https://example.com/h${i}`, events: ['*'] })).status).toBe(201);
      const over = await create(o.apiKey, { url: 'https://example.com/h10', events: ['*'] });
      expect(over.status).toBe(403);
      expect(over.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 10, current_count: 10, requested: 1 });
      const viaMake = await create(o.apiKey, { url: 'https://example.com/make', events: ['*'], source: 'make' });
      expect(viaMake.status).toBe(201);
    });
  });

  describe('access', () => {
    it('answers 403 plan_restricted on the free plan', async () => {
      const free = await createOrg(t, { plan: 'free' });
      for (const [method, path] of [
        ['GET', '/v1/webhooks'],
        ['POST', '/v1/webhooks'],
        ['GET', '/v1/events'],
      ]) {
        const res = await http(t.origin, method, path, { key: free.apiKey, body: method === 'POST' ? { url: 'https://example.com/h', events: ['*'] } : undefined });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('plan_restricted');
      }
    });

    it('needs webhooks:read to read and webhooks:write to write, rotate and test', async () => {
      const reader = await createOrg(t, { plan: 'pro', scopes: ['webhooks:read'] });
      expect((await http(t.origin, 'GET', '/v1/webhooks', { key: reader.apiKey })).status).toBe(200);
      expect((await http(t.origin, 'GET', '/v1/events', { key: reader.apiKey })).status).toBe(200);
      const write = await create(reader.apiKey, { url: 'https://example.com/h', events: ['*'] });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe('insufficient_scope');
      const fake = 'we_0000000000000000000000';
      for (const path of [`/v1/webhooks/${fake}/rotate-secret`, `/v1/webhooks/${fake}/test`]) {
        expect((await http(t.origin, 'POST', path, { key: reader.apiKey })).body.error.code).toBe('insufficient_scope');
      }
      const writerOnly = await createOrg(t, { plan: 'pro', scopes: ['qr:read', 'webhooks:write'] });
      const list = await http(t.origin, 'GET', '/v1/webhooks', { key: writerOnly.apiKey });
      expect(list.status).toBe(403);
      expect(list.body.error.code).toBe('insufficient_scope');
    });

    it("answers 404 for another workspace's endpoint and for malformed ids", async () => {
      const mine = await create(org.apiKey, { url: rx.url('/mine'), events: ['*'] });
      const other = await createOrg(t, { plan: 'pro' });
      for (const id of [mine.body.id, 'we_nope', 'evt_0000000000000000000000']) {
        for (const [method, path, body] of [
          ['GET', `/v1/webhooks/${id}`],
          ['PATCH', `/v1/webhooks/${id}`, { description: 'x' }],
          ['DELETE', `/v1/webhooks/${id}`],
          ['POST', `/v1/webhooks/${id}/rotate-secret`],
          ['POST', `/v1/webhooks/${id}/test`],
          ['GET', `/v1/webhooks/${id}/deliveries`],
        ] as const) {
          const res = await http(t.origin, method, path, { key: other.apiKey, body });
          expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, 'not_found']);
        }
      }
      expect(rx.forPath('/mine')).toHaveLength(0);
    });
  });

  describe('GET /v1/webhooks', () => {
    it('lists newest first with a cursor and refuses unknown parameters', async () => {
      const o = await createOrg(t, { plan: 'pro' });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await create(o.apiKey, { url: `https://example.com/l${i}`, events: ['*'] })).body.id);
      const page1 = await http(t.origin, 'GET', '/v1/webhooks?limit=2', { key: o.apiKey });
      expect(page1.status).toBe(200);
      expect(page1.body).toMatchObject({ object: 'list', has_more: true });
      expect(page1.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
      const page2 = await http(t.origin, 'GET', `/v1/webhooks?limit=2&cursor=${page1.body.next_cursor}`, { key: o.apiKey });
      expect(page2.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
      expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
      const unknown = await http(t.origin, 'GET', '/v1/webhooks?status=enabled', { key: o.apiKey });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.field).toBe('status');
      expect((await http(t.origin, 'GET', '/v1/webhooks?limit=101', { key: o.apiKey })).body.error.field).toBe('limit');
    });
  });

  describe('PATCH and DELETE /v1/webhooks/{id}', () => {
    it('updates url, events and description, and disables and re-enables', async () => {
      const ep = (await create(org.apiKey, { url: rx.url('/p1'), events: ['qr.created'], description: 'before' })).body;
      const patched = await http(t.origin, 'PATCH', `/v1/webhooks/${ep.id}`, {
        key: org.apiKey,
        body: { url: rx.url('/p2'), events: ['qr.deleted', 'qr.restored'], description: null },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ url: rx.url('/p2'), events: ['qr.deleted', 'qr.restored'], description: null, status: 'enabled' });
      expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(ep.updated_at));

      const off = await http(t.origin, 'PATCH', `/v1/webhooks/${ep.id}`, { key: org.apiKey, body: { status: 'disabled' } });
      expect(off.body).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
      const on = await http(t.origin, 'PATCH', `/v1/webhooks/${ep.id}`, { key: org.apiKey, body: { status: 'enabled' } });
      expect(on.body).toMatchObject({ status: 'enabled', disabled_reason: null, consecutive_failures: 0 });

      for (const [body, field] of [
        [{ status: 'auto_disabled' }, 'status'],
        [{ url: 'https://10.1.2.3/' }, 'url'],
        [{ events: ['nope'] }, 'events'],
        [{ source: 'make' }, 'source'],
        [{ events: null }, 'events'],
        [{ status: null }, 'status'],
        [{ url: null }, 'url'],
      ] as const) {
        const bad = await http(t.origin, 'PATCH', `/v1/webhooks/${ep.id}`, { key: org.apiKey, body });
        expect([bad.status, bad.body.error.field]).toEqual([400, field]);
      }
    });

    it('deletes an endpoint', async () => {
      const ep = (await create(org.apiKey, { url: rx.url('/del'), events: ['*'] })).body;
      const del = await http(t.origin, 'DELETE', `/v1/webhooks/${ep.id}`, { key: org.apiKey });
      expect(del.status).toBe(200);
      expect(del.body).toEqual({ id: ep.id, object: 'webhook_endpoint', deleted: true });
      expect((await http(t.origin, 'GET', `/v1/webhooks/${ep.id}`, { key: org.apiKey })).status).toBe(404);
    });
  });

  describe('POST /v1/webhooks/{id}/test', () => {
    it('sends a signed ping through the delivery pipeline and returns the delivery record', async () => {
      const ep = (await create(org.apiKey, { url: rx.url('/ping'), events: ['qr.created'] })).body;
      const res = await http(t.origin, 'POST', `/v1/webhooks/${ep.id}/test`, { key: org.apiKey });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(DELIVERY_KEYS);
      expect(res.body).toMatchObject({
        object: 'webhook_delivery',
        endpoint_id: ep.id,
        event_type: 'ping',
        status: 'succeeded',
        attempts: 1,
        status_code: 200,
        response_body: 'ok',
        error: null,
        next_attempt_at: null,
      });
      expect(res.body.id).toMatch(/^wd_/);
      expect(res.body.latency_ms).toEqual(expect.any(Number));

      const [req] = rx.forPath('/ping');
      expect(req.method).toBe('POST');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['user-agent']).toBe('Scanlink-Webhooks/1.0');
      expect(req.headers['scanlink-event-id']).toBe(res.body.event_id);
      expect(req.headers['scanlink-event-type']).toBe('ping');
      const event = Stripe.webhooks.constructEvent(req.body, String(req.headers['scanlink-signature']), ep.secret);
      expect(event.id).toBe(res.body.event_id);
      const body = JSON.parse(req.body);
      expect(Object.keys(body)).toEqual(['id', 'object', 'type', 'created_at', 'data']);
      expect(body).toEqual({ id: res.body.event_id, object: 'event', type: 'ping', created_at: expect.stringMatching(/\.\d{3}Z$/), data: { webhook_endpoint_id: ep.id } });

      // The ping is archived like any dispatched event, and listed among the endpoint's deliveries.
      const archived = await http(t.origin, 'GET', `/v1/events/${body.id}`, { key: org.apiKey });
      expect(archived.body).toEqual(body);
      const deliveries = await http(t.origin, 'GET', `/v1/webhooks/${ep.id}/deliveries`, { key: org.apiKey });
      expect(deliveries.body.data).toEqual([res.body]);
    });

    it('reports a failed attempt (status, first 2 KB of the body) and schedules the retry', async () => {
      const ep = (await create(org.apiKey, { url: rx.url('/broken'), events: ['*'] })).body;
      rx.reply = (req) => (req.path === '/broken' ? { status: 503, body: 'é'.repeat(3000) } : { status: 200, body: 'ok' });
      try {
        const res = await http(t.origin, 'POST', `/v1/webhooks/${ep.id}/test`, { key: org.apiKey });
        expect(res.body).toMatchObject({ status: 'retrying', attempts: 1, status_code: 503, error: 'Receiver answered HTTP 503' });
        expect(Buffer.byteLength(res.body.response_body)).toBeLessThanOrEqual(2048 + 3);
        expect(res.body.response_body.startsWith('é'.repeat(1000))).toBe(true);
        const due = Date.parse(res.body.next_attempt_at) - Date.now();
        expect(due).toBeGreaterThan(50_000);
        expect(due).toBeLessThanOrEqual(60_000);
        const failing = await http(t.origin, 'GET', `/v1/webhooks/${ep.id}`, { key: org.apiKey });
        expect(failing.body.consecutive_failures).toBe(1);
        const retrying = await http(t.origin, 'GET', `/v1/webhooks/${ep.id}/deliveries?status=retrying`, { key: org.apiKey });
        expect(retrying.body.data.map((d: { id: string }) => d.id)).toEqual([res.body.id]);
        const succeeded = await http(t.origin, 'GET', `/v1/webhooks/${ep.id}/deliveries?status=succeeded`, { key: org.apiKey });
        expect(succeeded.body.data).toEqual([]);
        const bad = await http(t.origin, 'GET', `/v1/webhooks/${ep.id}/deliveries?status=done`, { key: org.apiKey });
        expect([bad.status, bad.body.error.field]).toEqual([400, 'status']);
      } finally {
        rx.reply = () => ({ status: 200, body: 'ok' });
      }
    });

    it('does not follow redirects: a 3xx is a failed attempt', async () => {
      const ep = (await create(org.apiKey, { url: rx.url('/moved'), events: ['*'] })).body;
      rx.reply = (req) => (req.path === '/moved' ? { status: 302, headers: { location: rx.url('/target') } } : { status: 200 });
      try {
        const res = await http(t.origin, 'POST', `/v1/webhooks/${ep.id}/test`, { key: org.apiKey });
        expect(res.body).toMatchObject({ status: 'retrying', status_code: 302, error: 'Redirects are not followed (HTTP 302)' });
        expect(rx.forPath('/target')).toHaveLength(0);
      } finally {
        rx.reply = () => ({ status: 200, body: 'ok' });
      }
    });

    it('gives up after the timeout', async () => {
      const hanging = new WebhookSender(['127.0.0.1'], 300);
      rx.reply = (req) => (req.path === '/slow' ? new Promise((r) => void setTimeout(() => r({ status: 200 }), 1000).unref()) : { status: 200 });
      try {
        const outcome = await hanging.send(rx.url('/slow'), '{}', {});
        expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'Timed out after 300 ms' });
        expect(outcome.latencyMs).toBeGreaterThanOrEqual(290);
      } finally {
        rx.reply = () => ({ status: 200, body: 'ok' });
        await hanging.close();
      }
    });
  });

  describe('POST /v1/webhooks/{id}/rotate-secret', () => {
    it('signs with the new secret first and the previous one second for 24 hours', async () => {
      const ep = (await create(org.apiKey, { url: rx.url('/rotate'), events: ['*'] })).body;
      const rot = await http(t.origin, 'POST', `/v1/webhooks/${ep.id}/rotate-secret`, { key: org.apiKey });
      expect(rot.status).toBe(200);
      expect(Object.keys(rot.body).sort()).toEqual(['id', 'object', 'previous_secret_expires_at', 'secret']);
      expect(rot.body).toMatchObject({ id: ep.id, object: 'webhook_endpoint_secret' });
      expect(rot.body.secret).toMatch(/^whsec_/);
      expect(rot.body.secret).not.toBe(ep.secret);
      const window = Date.parse(rot.body.previous_secret_expires_at) - Date.now();
      expect(window).toBeGreaterThan(24 * 3_600_000 - 60_000);
      expect(window).toBeLessThanOrEqual(24 * 3_600_000);

      const ping = await http(t.origin, 'POST', `/v1/webhooks/${ep.id}/test`, { key: org.apiKey });
      expect(ping.body).toMatchObject({ status: 'succeeded' });
      const [req] = rx.forPath('/rotate');
      const header = String(req.headers['scanlink-signature']);
      const [tPart, first, second, extra] = header.split(',');
      expect(extra).toBeUndefined();
      const ts = tPart.slice(2);
      const hmac = (secret: string) => createHmac('sha256', secret).update(`${ts}.${req.body}`).digest('hex');
      expect(first).toBe(`v1=${hmac(rot.body.secret)}`);
      expect(second).toBe(`v1=${hmac(ep.secret)}`);
      expect(() => Stripe.webhooks.constructEvent(req.body, header, rot.body.secret)).not.toThrow();
      expect(() => Stripe.webhooks.constructEvent(req.body, header, ep.secret)).not.toThrow();
    });

    it('applies rotations sent at once one after the other: the last two secrets handed out sign, the first one no more', async () => {
      const ep = (await create(org.apiKey, { url: rx.url('/rotate-race'), events: ['*'] })).body;
      const rotations = await Promise.all([1, 2, 3].map(() => http(t.origin, 'POST', `/v1/webhooks/${ep.id}/rotate-secret`, { key: org.apiKey })));
      expect(rotations.map((r) => r.status)).toEqual([200, 200, 200]);
      const ping = await http(t.origin, 'POST', `/v1/webhooks/${ep.id}/test`, { key: org.apiKey });
      expect(ping.body).toMatchObject({ status: 'succeeded' });
      const [req] = rx.forPath('/rotate-race');
      const header = String(req.headers['scanlink-signature']);
      const signs = (secret: string) => {
        try {
          Stripe.webhooks.constructEvent(req.body, header, secret);
          return true;
        } catch {
          return false;
        }
      };
      expect(signs(ep.secret)).toBe(false);
      expect(rotations.filter((r) => signs(r.body.secret as string))).toHaveLength(2);
    });

    it('answers a test delivery of an endpoint deleted meanwhile with 404, never 500', async () => {
      for (let round = 0; round < 3; round++) {
        const ep = (await create(org.apiKey, { url: rx.url('/test-race'), events: ['*'] })).body;
        const [ping, del] = await Promise.all([
          http(t.origin, 'POST', `/v1/webhooks/${ep.id}/test`, { key: org.apiKey }),
          http(t.origin, 'DELETE', `/v1/webhooks/${ep.id}`, { key: org.apiKey }),
        ]);
        expect([200, 404]).toContain(ping.status);
        if (ping.status === 404) expect(ping.body.error.code).toBe('not_found');
        expect(del.status).not.toBe(500);
        expect((await http(t.origin, 'GET', `/v1/webhooks/${ep.id}`, { key: org.apiKey })).status).toBe(404);
      }
    });
  });

  it('documents every webhook and event route in the OpenAPI document', async () => {
    const doc = await http(t.origin, 'GET', '/docs/openapi.json');
    const paths = Object.keys(doc.body.paths);
    for (const p of ['/v1/webhooks', '/v1/webhooks/{id}', '/v1/webhooks/{id}/rotate-secret', '/v1/webhooks/{id}/test', '/v1/webhooks/{id}/deliveries', '/v1/events', '/v1/events/{id}']) {
      expect(paths).toContain(p);
    }
    expect(doc.body.paths['/v1/webhooks'].post.tags).toEqual(['Webhooks']);
    expect(doc.body.components.schemas.WebhookDeliveryDto).toBeDefined();
    expect(doc.body.components.schemas.WebhookDeliveryDto.properties.attempts.type).toBe('integer');
    // What a receiver gets: the delivery request, its headers and the event body.
    const delivery = doc.body['x-webhooks'].event.post;
    expect(delivery.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['Scanlink-Signature', 'Scanlink-Event-Id', 'Scanlink-Event-Type']),
    );
    expect(delivery.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/EventDto' });
    expect(doc.body.tags.find((tag: { name: string }) => tag.name === 'Webhooks').description).toMatch(/t=<unix seconds>,v1=.*1 minute, 5 minutes, 30 minutes, 2 hours, 6 hours and 24 hours/);
  });
});
