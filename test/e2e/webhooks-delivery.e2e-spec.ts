import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import Stripe from 'stripe';
import { createWorkerApp } from '../../src/app/bootstrap';
import { QUEUES } from '../../src/common/queue/queues';
import { EventsService } from '../../src/modules/events/events.service';
import type { EventType } from '../../src/modules/events/event-types';
import { ownerKey } from '../../src/modules/events/event-subscriber';
import { WebhookOutbox } from '../../src/modules/webhooks/webhook-outbox';
import { TestReceiver, waitFor } from '../../src/modules/webhooks/testing/receiver';
import { WebhookDeliveryService } from '../../src/modules/webhooks/webhook-delivery.service';
import { createOrg, db, http, isolatedRedisUrl, startApi, TEST_WORKER_WEBHOOKS, testConfig, TestApp, TestOrg } from '../setup/app';

// Every test worker shares these settings: whichever worker delivers (or auto-disables and e-mails), it behaves the
// same. Its mail lands in the run's data directory, or in a dashboard or members stack's own folder (mailDirs).
// Its own Redis database as well: this file pauses its worker's queue to lose a job on purpose, and a worker of
// another file must not take that job from a shared queue first.
const CONFIG = { ...TEST_WORKER_WEBHOOKS, REDIS_URL: isolatedRedisUrl(13) };
const mailDir = testConfig().mailDir;
/**
 * Every mail folder a worker of this run may write to: the run's, and those of the dashboard and members stacks
 * (test/setup/members.ts mailDataDir), whose workers share the database and so may make (and e-mail about) any due
 * attempt of this file.
 */
const mailDirs = (): string[] => [
  mailDir,
  ...readdirSync(tmpdir())
    .filter((name) => name.startsWith('scanlink-mail-'))
    .map((name) => join(tmpdir(), name, 'mail')),
];

describe('Webhook delivery (worker)', () => {
  let t: TestApp;
  let worker: INestApplicationContext;
  let rx: TestReceiver;
  let org: TestOrg;
  let events: EventsService;

  beforeAll(async () => {
    rx = await new TestReceiver().start();
    t = await startApi(CONFIG);
    worker = await createWorkerApp(testConfig(CONFIG), { logLevel: process.env.TEST_LOG_LEVEL ?? 'silent' });
    org = await createOrg(t, { plan: 'pro' });
    events = t.app.get(EventsService, { strict: false });
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await rx.stop();
  });

  async function endpoint(path: string, types: string[] = ['*'], o: TestOrg = org) {
    const res = await http(t.origin, 'POST', '/v1/webhooks', { key: o.apiKey, body: { url: rx.url(path), events: types } });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  }
  /** This file's workspaces use live keys: their endpoints and events are live. */
  const live = (o: TestOrg) => ({ organizationId: o.organizationId, environment: 'live' as const });
  const emit = (type: Parameters<EventsService['emit']>[2], data: object, o: TestOrg = org) =>
    db(t).transactional((em) => events.emit(em, live(o), type, data));
  /** An event and its deliveries written without NOTIFY and with no job: only the database knows about them. */
  const recordQuietly = (type: EventType, data: object) =>
    db(t).transactional(async (em) => {
      const outbox = t.app.get(WebhookOutbox, { strict: false });
      const listener = (await outbox.listeners(em, [live(org)], type)).get(ownerKey(live(org)))!;
      const event = await events.record(em, live(org), type, data);
      return { eventId: event.id, deliveryIds: await outbox.addDeliveries(em, [{ event, listener }], { wake: false }) };
    });
  const getEndpoint = async (id: string) => (await http(t.origin, 'GET', `/v1/webhooks/${id}`, { key: org.apiKey })).body;
  const deliveriesOf = async (id: string) => (await http(t.origin, 'GET', `/v1/webhooks/${id}/deliveries?limit=100`, { key: org.apiKey })).body.data;

  it('delivers an event emitted in a transaction, signed and in the exact envelope', async () => {
    const ep = await endpoint('/basic', ['qr.created']);
    const data = { id: 'qr_abc', object: 'qr_code', name: 'Menu', tags: ['a'] };
    const eventId = await emit('qr.created', data);
    expect(eventId).toMatch(/^evt_[0-9A-Za-z]{16,}$/);
    const req = await waitFor(() => rx.forPath('/basic')[0], 'the delivery');
    const event = Stripe.webhooks.constructEvent(req.body, String(req.headers['scanlink-signature']), ep.secret);
    expect(event.id).toBe(eventId);
    expect(req.headers['scanlink-event-id']).toBe(eventId);
    expect(req.headers['scanlink-event-type']).toBe('qr.created');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^Scanlink-Webhooks\//);
    const body = JSON.parse(req.body);
    expect(Object.keys(body)).toEqual(['id', 'object', 'type', 'created_at', 'data']);
    expect(body).toEqual({ id: eventId, object: 'event', type: 'qr.created', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), data });
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(ep.id);
      return list[0]?.status === 'succeeded' && list;
    }, 'the succeeded delivery');
    expect(delivery).toMatchObject({ event_id: eventId, event_type: 'qr.created', attempts: 1, status_code: 200, response_body: 'ok', error: null, next_attempt_at: null });
    const archived = await http(t.origin, 'GET', `/v1/events/${eventId}`, { key: org.apiKey });
    expect(archived.body).toEqual(body);
  });

  it('records nothing when no enabled endpoint subscribes (rule 9) or when the transaction rolls back', async () => {
    const o = await createOrg(t, { plan: 'pro' });
    expect(await emit('qr.created', { id: 'qr_none' }, o)).toBeNull();
    const other = await endpoint('/rule9', ['qr.deleted'], o);
    expect(await emit('qr.created', { id: 'qr_x' }, o)).toBeNull();
    await http(t.origin, 'PATCH', `/v1/webhooks/${other.id}`, { key: o.apiKey, body: { status: 'disabled', events: ['*'] } });
    expect(await emit('qr.created', { id: 'qr_y' }, o)).toBeNull();
    await http(t.origin, 'PATCH', `/v1/webhooks/${other.id}`, { key: o.apiKey, body: { status: 'enabled' } });

    await expect(
      db(t).transactional(async (em) => {
        await events.emit(em, live(o), 'qr.updated', { id: 'qr_rolled_back' });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const archive = await http(t.origin, 'GET', '/v1/events', { key: o.apiKey });
    expect(archive.body.data).toEqual([]);
    const kept = await emit('qr.updated', { id: 'qr_kept' }, o);
    await waitFor(() => rx.forPath('/rule9').length === 1, 'the committed event');
    expect(JSON.parse(rx.forPath('/rule9')[0].body).id).toBe(kept);
    expect(rx.requests.some((r) => r.body.includes('qr_rolled_back'))).toBe(false);
  });

  it('retries failed attempts with the same event id and identical bytes until one succeeds', async () => {
    const ep = await endpoint('/flaky', ['qr.updated']);
    rx.reply = (req, n) => (req.path === '/flaky' && n < 3 ? { status: 500, body: 'down' } : { status: 200, body: 'ok' });
    try {
      const eventId = await emit('qr.updated', { id: 'qr_flaky', name: 'ünïcödé ✓' });
      await waitFor(() => rx.forPath('/flaky').length === 4, 'four attempts');
      const attempts = rx.forPath('/flaky');
      expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
      expect(attempts.map((a) => a.headers['scanlink-event-id'])).toEqual([eventId, eventId, eventId, eventId]);
      for (const a of attempts) expect(() => Stripe.webhooks.constructEvent(a.body, String(a.headers['scanlink-signature']), ep.secret)).not.toThrow();
      const [d] = await waitFor(async () => {
        const list = await deliveriesOf(ep.id);
        return list[0]?.status === 'succeeded' && list;
      }, 'success');
      expect(d).toMatchObject({ attempts: 4, status_code: 200, error: null, next_attempt_at: null });
      expect((await getEndpoint(ep.id)).consecutive_failures).toBe(0);
    } finally {
      rx.reply = () => ({ status: 200, body: 'ok' });
    }
  });

  it('marks a delivery failed after the 7th failed attempt, then auto-disables the endpoint after sustained failures', async () => {
    const ep = await endpoint('/dead', ['qr.deleted']);
    rx.reply = (req) => (req.path === '/dead' ? { status: 500, body: 'nope' } : { status: 200, body: 'ok' });
    try {
      await emit('qr.deleted', { id: 'qr_dead_1' });
      const [first] = await waitFor(async () => {
        const list = await deliveriesOf(ep.id);
        return list[0]?.status === 'failed' && list;
      }, 'terminal failure');
      expect(first).toMatchObject({ attempts: 7, status_code: 500, response_body: 'nope', error: 'Receiver answered HTTP 500', next_attempt_at: null });
      expect(rx.forPath('/dead')).toHaveLength(7);
      // 7 consecutive failures: below WEBHOOK_AUTO_DISABLE_FAILURES=10, still enabled.
      expect(await getEndpoint(ep.id)).toMatchObject({ status: 'enabled', consecutive_failures: 7 });

      await emit('qr.deleted', { id: 'qr_dead_2' });
      const disabled = await waitFor(async () => {
        const e = await getEndpoint(ep.id);
        return e.status === 'auto_disabled' && e;
      }, 'auto-disable');
      expect(disabled).toMatchObject({ disabled_reason: 'sustained_failures', consecutive_failures: 10 });
      const second = (await deliveriesOf(ep.id)).find((d: { status: string; attempts: number }) => d.attempts === 3);
      expect(second).toMatchObject({ status: 'failed', next_attempt_at: null });
      expect(rx.forPath('/dead')).toHaveLength(10);
      // The audit log says the system turned it off, and why.
      const audit = await http(t.origin, 'GET', `/v1/audit-log?resource_id=${ep.id}&action=webhook_endpoint.updated`, { key: org.apiKey });
      expect(audit.status).toBe(200);
      expect(audit.body.data).toHaveLength(1);
      expect(audit.body.data[0]).toMatchObject({
        actor: { type: 'system', id: 'system' },
        resource: { type: 'webhook_endpoint', id: ep.id },
        changes: { status: ['enabled', 'auto_disabled'], disabled_reason: [null, 'sustained_failures'] },
        request_id: null,
      });

      const mail = await waitFor(() => {
        for (const dir of mailDirs()) {
          const files = existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).filter((f) => f.name.endsWith('.eml')) : [];
          const found = files.map((f) => readFileSync(join(dir, f.name), 'utf8')).find((m) => m.includes(ep.id));
          if (found) return found;
        }
        return undefined;
      }, 'the e-mail to the owner');
      expect(mail).toMatch(/^To: owner@example\.com$/m);
      expect(mail).toMatch(/^Subject: .*disabled/m);
      expect(mail).toContain(rx.url('/dead'));
      expect(mail).not.toContain('whsec_');

      // Disabled: new events are neither recorded for it nor delivered.
      expect(await emit('qr.deleted', { id: 'qr_dead_3' })).toBeNull();

      rx.reply = () => ({ status: 200, body: 'ok' });
      const on = await http(t.origin, 'PATCH', `/v1/webhooks/${ep.id}`, { key: org.apiKey, body: { status: 'enabled' } });
      expect(on.body).toMatchObject({ status: 'enabled', disabled_reason: null, consecutive_failures: 0 });
      await emit('qr.deleted', { id: 'qr_alive' });
      await waitFor(() => rx.forPath('/dead').some((r) => r.body.includes('qr_alive')), 'delivery after re-enabling');
    } finally {
      rx.reply = () => ({ status: 200, body: 'ok' });
    }
  });

  it('disables the endpoint at once on 410 Gone, without retrying', async () => {
    const ep = await endpoint('/gone', ['lead.captured']);
    rx.reply = (req) => (req.path === '/gone' ? { status: 410, body: 'gone' } : { status: 200, body: 'ok' });
    try {
      await emit('lead.captured', { email: 'a@example.com' });
      const e = await waitFor(async () => {
        const x = await getEndpoint(ep.id);
        return x.status === 'disabled' && x;
      }, 'the endpoint disabled');
      expect(e.disabled_reason).toBe('gone');
      const [d] = await deliveriesOf(ep.id);
      expect(d).toMatchObject({ status: 'failed', attempts: 1, status_code: 410, next_attempt_at: null });
      expect(rx.forPath('/gone')).toHaveLength(1);
    } finally {
      rx.reply = () => ({ status: 200, body: 'ok' });
    }
  });

  it('recovers deliveries Bull never saw (Redis lost them): the sweeper enqueues due rows from the database', async () => {
    await endpoint('/sweep', ['batch.completed']);
    // Written without NOTIFY and with no job: only the database knows about it.
    const recorded = await recordQuietly('batch.completed', { id: 'batch_1' });
    const req = await waitFor(() => rx.forPath('/sweep')[0], 'the swept delivery', 10_000);
    expect(req.headers['scanlink-event-id']).toBe(recorded!.eventId);

    // A job that Redis lost after the NOTIFY enqueued it (pause this worker, drop the waiting job, resume).
    const queue = worker.get<Queue>(getQueueToken(QUEUES.webhookDeliveries), { strict: false });
    await queue.pause(true);
    let again: string | null = null;
    try {
      again = await emit('batch.completed', { id: 'batch_2' });
      await waitFor(async () => (await queue.getWaiting()).some((j) => j.data.deliveryId), 'the job added after NOTIFY');
      await queue.empty();
    } finally {
      await queue.resume(true);
    }
    const swept = await waitFor(() => rx.forPath('/sweep')[1], 'the lost delivery recovered by the sweeper', 10_000);
    expect(swept.headers['scanlink-event-id']).toBe(again);
  });

  it('a worker that is stopping claims no attempt: the delivery stays due and another worker makes it', async () => {
    const ep = await endpoint('/stopping', ['qr.scanned']);
    const stopping = await createWorkerApp(testConfig(CONFIG), { logLevel: process.env.TEST_LOG_LEVEL ?? 'silent' });
    try {
      const service = stopping.get(WebhookDeliveryService, { strict: false });
      await service.onModuleDestroy(); // what app.close() runs first: its HTTP client is closed from here on
      const recorded = await recordQuietly('qr.scanned', { id: 'qr_stopping' });
      expect(recorded!.deliveryIds.length).toBeGreaterThan(0);
      for (const id of recorded!.deliveryIds) expect(await service.attempt(id, 1)).toBeNull();
      // This file's worker sweeps it up: one attempt, received, succeeded.
      await waitFor(() => rx.forPath('/stopping')[0], 'the delivery made by the running worker', 10_000);
      const [d] = await waitFor(async () => {
        const list = await deliveriesOf(ep.id);
        return list[0]?.status === 'succeeded' && list;
      }, 'success');
      expect(d).toMatchObject({ attempts: 1, status_code: 200, error: null });
    } finally {
      await stopping.close();
    }
  });

  it('collapses duplicate jobs for the same attempt', async () => {
    await endpoint('/dupe', ['qr.restored']);
    const recorded = await recordQuietly('qr.restored', { id: 'qr_d' });
    const deliveries = worker.get(WebhookDeliveryService, { strict: false });
    const id = recorded!.deliveryIds[0];
    await Promise.all([
      deliveries.enqueue([{ deliveryId: id, attempt: 1 }]),
      deliveries.enqueue([{ deliveryId: id, attempt: 1 }]),
      deliveries.attempt(id, 1),
      deliveries.attempt(id, 1),
    ]);
    await waitFor(async () => {
      const list = await deliveriesOf((await db(t).execute(`select endpoint_id from webhook_deliveries where id = ?`, [id]))[0].endpoint_id);
      return list[0]?.status === 'succeeded';
    }, 'the delivery');
    // Give the queued duplicates a chance to run: they must find the attempt done.
    await waitFor(async () => (await worker.get<Queue>(getQueueToken(QUEUES.webhookDeliveries), { strict: false }).getJobCounts()).active === 0, 'idle queue');
    expect(rx.forPath('/dupe')).toHaveLength(1);
  });
});
