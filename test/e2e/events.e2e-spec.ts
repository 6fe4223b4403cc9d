import { MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import { EventsRetentionProcessor, EventsRetentionScheduler } from '../../src/modules/events/events-retention';
import { EventsService } from '../../src/modules/events/events.service';
import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { createOrg, db, http, startApi, TestApp, TestOrg } from '../setup/app';

describe('Event archive (/v1/events)', () => {
  let t: TestApp;
  let org: TestOrg;
  let rx: TestReceiver;
  let events: EventsService;

  beforeAll(async () => {
    // No worker of its own: the archive does not depend on delivery. The endpoints point at a receiver that answers
    // 200, so a worker booted by another test file that happens to deliver them does not fail (and auto-disable) them.
    rx = await new TestReceiver().start();
    t = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    events = t.app.get(EventsService, { strict: false });
    org = await createOrg(t, { plan: 'pro' });
    const res = await http(t.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: rx.url('/archive'), events: ['*'] } });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await rx.stop();
  });

  const emit = (type: Parameters<EventsService['emit']>[2], data: object, o: TestOrg = org) =>
    db(t).transactional((em) => events.emit(em, { organizationId: o.organizationId, environment: 'live' }, type, data));

  it('lists dispatched events newest first, filters by type and pages with a cursor', async () => {
    const ids: string[] = [];
    for (const [i, type] of (['qr.created', 'qr.updated', 'qr.created', 'qr.deleted', 'qr.created'] as const).entries()) {
      ids.push((await emit(type, { id: `qr_${i}`, n: i }))!);
    }
    const all = await http(t.origin, 'GET', '/v1/events?limit=100', { key: org.apiKey });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(all.body.data.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
    expect(all.body.data[0]).toEqual({ id: ids[4], object: 'event', type: 'qr.created', created_at: expect.stringMatching(/\.\d{3}Z$/), data: { id: 'qr_4', n: 4 } });

    const page1 = await http(t.origin, 'GET', '/v1/events?type=qr.created&limit=2', { key: org.apiKey });
    expect(page1.body.data.map((e: { id: string }) => e.id)).toEqual([ids[4], ids[2]]);
    expect(page1.body.has_more).toBe(true);
    const page2 = await http(t.origin, 'GET', `/v1/events?type=qr.created&limit=2&cursor=${page1.body.next_cursor}`, { key: org.apiKey });
    expect(page2.body.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expect(page2.body.has_more).toBe(false);
    // The cursor belongs to the type filter it was issued for.
    const reused = await http(t.origin, 'GET', `/v1/events?type=qr.updated&cursor=${page1.body.next_cursor}`, { key: org.apiKey });
    expect([reused.status, reused.body.error.field]).toEqual([400, 'cursor']);

    const one = await http(t.origin, 'GET', `/v1/events/${ids[1]}`, { key: org.apiKey });
    expect(one.body).toEqual(all.body.data[3]);
  });

  it('refuses bad query parameters with 400', async () => {
    for (const [query, field] of [
      ['type=qr.exploded', 'type'],
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['cursor=forged.cursor', 'cursor'],
      ['since=2026-01-01', 'since'],
    ]) {
      const res = await http(t.origin, 'GET', `/v1/events?${query}`, { key: org.apiKey });
      expect([query, res.status, res.body.error?.code, res.body.error?.field]).toEqual([query, 400, 'invalid_request', field]);
    }
  });

  it("answers 404 for another workspace's event and for unknown ids", async () => {
    const id = await emit('qr.updated', { id: 'qr_private' });
    const other = await createOrg(t, { plan: 'pro' });
    for (const probe of [id, 'evt_0000000000000000000000', 'qr_notanevent1234567890']) {
      const res = await http(t.origin, 'GET', `/v1/events/${probe}`, { key: other.apiKey });
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    }
    const list = await http(t.origin, 'GET', '/v1/events', { key: other.apiKey });
    expect(list.body.data).toEqual([]);
  });

  it('keeps events and delivery records 30 days: the hourly job deletes older ones', async () => {
    const o = await createOrg(t, { plan: 'pro' });
    await http(t.origin, 'POST', '/v1/webhooks', { key: o.apiKey, body: { url: rx.url('/retention'), events: ['*'] } });
    const oldId = (await emit('qr.created', { id: 'qr_old' }, o))!;
    const recentId = (await emit('qr.created', { id: 'qr_recent' }, o))!;
    const em = db(t);
    await em.execute(`update events set created_at = now() - interval '31 days' where id = ?`, [oldId]);
    await em.execute(`update webhook_deliveries set created_at = now() - interval '31 days' where event_id = ?`, [oldId]);
    // Past 30 days an event is gone from the API even before the purge runs.
    expect((await http(t.origin, 'GET', `/v1/events/${oldId}`, { key: o.apiKey })).status).toBe(404);
    expect((await http(t.origin, 'GET', '/v1/events', { key: o.apiKey })).body.data.map((e: { id: string }) => e.id)).toEqual([recentId]);

    // The cron only enqueues, under an id that is the same for every worker within the hour.
    const added: Array<{ name: string; opts: { jobId: string } }> = [];
    const fakeQueue = { add: async (name: string, _data: object, opts: { jobId: string }) => void added.push({ name, opts }) } as unknown as Queue;
    const scheduler = new EventsRetentionScheduler(fakeQueue);
    await scheduler.schedule();
    await scheduler.schedule();
    expect(added[0].name).toBe('events-retention');
    expect(added[0].opts.jobId).toMatch(/^events-retention:\d{4}-\d\d-\d\dT\d\d$/);
    expect(added[1].opts.jobId).toBe(added[0].opts.jobId);

    const purged = await new EventsRetentionProcessor(t.app.get(MikroORM)).purge();
    expect(purged.events).toBeGreaterThanOrEqual(1);
    const left = await em.execute<{ id: string }[]>(`select id from events where id in (?, ?)`, [oldId, recentId]);
    expect(left.map((r: { id: string }) => r.id)).toEqual([recentId]);
    const deliveries = await em.execute<{ event_id: string }[]>(`select event_id from webhook_deliveries where event_id in (?, ?)`, [oldId, recentId]);
    expect(deliveries.map((r: { event_id: string }) => r.event_id)).toEqual([recentId]);
  });

  it('archives qr.created with the full QR code object when a code is created through the API', async () => {
    const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { name: 'Archive me', target: { type: 'url', destination: 'https://example.com/x' } } });
    expect(res.status).toBe(201);
    const list = await http(t.origin, 'GET', '/v1/events?type=qr.created&limit=1', { key: org.apiKey });
    expect(list.body.data[0].data).toEqual(res.body);
  });
});
