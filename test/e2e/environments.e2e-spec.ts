import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { addKey, createOrg, eventually, http, startApi, startScan, startWorker, TestApp } from '../setup/app';

const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** Test and live data are separate, as in Stripe: a key reads, lists and changes only its own environment's objects;
 * the other environment's ids are 404. */
describe('test and live environments', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  });
  afterAll(() => api?.close());

  it('a qr_test_ key cannot see or change live codes, folders and batches, and the other way round', async () => {
    const live = await createOrg(api, { plan: 'pro' });
    const test = await addKey(api, live.organizationId, { environment: 'test' });
    expect(test.apiKey).toMatch(/^qr_test_/);
    const liveCode = (await http(api.origin, 'POST', '/v1/qr-codes', { key: live.apiKey, body: { target: { type: 'url', destination: 'https://example.com/live' } } })).body;
    const testCode = (await http(api.origin, 'POST', '/v1/qr-codes', { key: test.apiKey, body: { target: { type: 'url', destination: 'https://example.com/test' } } })).body;
    expect(liveCode.environment).toBe('live');
    expect(testCode.environment).toBe('test');

    for (const [key, foreign] of [
      [test.apiKey, liveCode.id],
      [live.apiKey, testCode.id],
    ]) {
      const calls: [string, string, unknown?][] = [
        ['GET', `/v1/qr-codes/${foreign}`],
        ['PATCH', `/v1/qr-codes/${foreign}`, { name: 'hijacked', target: { destination: 'https://evil.example/' } }],
        ['GET', `/v1/qr-codes/${foreign}/analytics`],
        ['GET', `/v1/qr-codes/${foreign}/download`],
        ['DELETE', `/v1/qr-codes/${foreign}`],
        ['POST', `/v1/qr-codes/${foreign}/restore`],
      ];
      for (const [method, path, body] of calls) {
        const res = await http(api.origin, method, path, { key, body });
        expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, 'not_found']);
      }
    }
    const liveList = await http(api.origin, 'GET', '/v1/qr-codes', { key: live.apiKey });
    expect(liveList.body.data.map((c: { id: string }) => c.id)).toEqual([liveCode.id]);
    const testList = await http(api.origin, 'GET', '/v1/qr-codes', { key: test.apiKey });
    expect(testList.body.data.map((c: { id: string }) => c.id)).toEqual([testCode.id]);
    const unchanged = await http(api.origin, 'GET', `/v1/qr-codes/${liveCode.id}`, { key: live.apiKey });
    expect(unchanged.body.name).toBe(liveCode.name);
    expect(unchanged.body.target.destination).toBe('https://example.com/live');

    // Folders too: another environment's folder is 404, and cannot hold this environment's codes.
    const liveFolder = await http(api.origin, 'POST', '/v1/folders', { key: live.apiKey, body: { name: 'Live folder' } });
    expect(liveFolder.status).toBe(201);
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as [string, unknown?][]) {
      const res = await http(api.origin, method, `/v1/folders/${liveFolder.body.id}`, { key: test.apiKey, body });
      expect([method, res.status]).toEqual([method, 404]);
    }
    const filed = await http(api.origin, 'PATCH', `/v1/qr-codes/${testCode.id}`, { key: test.apiKey, body: { folder_id: liveFolder.body.id } });
    expect(filed.status).toBe(404);
    expect((await http(api.origin, 'GET', `/v1/qr-codes?folder_id=${liveFolder.body.id}`, { key: test.apiKey })).status).toBe(404);
    expect((await http(api.origin, 'GET', '/v1/folders', { key: test.apiKey })).body.data).toHaveLength(0);
    expect((await http(api.origin, 'GET', '/v1/folders', { key: live.apiKey })).body.data).toHaveLength(1);

    const batch = await http(api.origin, 'POST', '/v1/batches', { key: live.apiKey, body: { items: [{ target: { type: 'text', text: 'b' } }] } });
    expect(batch.status).toBe(202);
    expect((await http(api.origin, 'GET', `/v1/batches/${batch.body.id}`, { key: test.apiKey })).status).toBe(404);
    expect((await http(api.origin, 'GET', '/v1/batches', { key: test.apiKey })).body.data).toHaveLength(0);
    expect((await http(api.origin, 'GET', '/v1/batches', { key: live.apiKey })).body.data).toHaveLength(1);
  });

  describe('webhook endpoints and events', () => {
    let scan: TestApp;
    let worker: Awaited<ReturnType<typeof startWorker>>;
    let rx: TestReceiver;
    beforeAll(async () => {
      rx = await new TestReceiver().start();
      scan = await startScan();
      worker = await startWorker();
    });
    afterAll(async () => {
      await worker?.close();
      await scan?.close();
      await rx?.stop();
    });

    type Delivered = { id: string; type: string; data: { id?: string; qr_code_id?: string; webhook_endpoint_id?: string } };
    const received = (path: string): Delivered[] => rx.forPath(path).map((r) => JSON.parse(r.body) as Delivered);
    const about = (e: Delivered) => e.data.qr_code_id ?? e.data.webhook_endpoint_id ?? e.data.id;

    it('endpoints and events are seen only by keys of their environment, and events reach only endpoints of theirs', async () => {
      const live = await createOrg(api, { plan: 'pro' });
      const test = await addKey(api, live.organizationId, { environment: 'test' });
      const hook = async (key: string, path: string) => {
        const res = await http(api.origin, 'POST', '/v1/webhooks', { key, body: { url: rx.url(path), events: ['*'] } });
        expect(res.status).toBe(201);
        return res.body as { id: string };
      };
      const liveHook = await hook(live.apiKey, '/env/live');
      const testHook = await hook(test.apiKey, '/env/test');

      // Endpoints: lists show only the key's environment; the other environment's endpoint is 404 everywhere.
      expect((await http(api.origin, 'GET', '/v1/webhooks', { key: live.apiKey })).body.data.map((e: { id: string }) => e.id)).toEqual([liveHook.id]);
      expect((await http(api.origin, 'GET', '/v1/webhooks', { key: test.apiKey })).body.data.map((e: { id: string }) => e.id)).toEqual([testHook.id]);
      for (const [key, foreign] of [
        [test.apiKey, liveHook.id],
        [live.apiKey, testHook.id],
      ]) {
        const calls: [string, string, unknown?][] = [
          ['GET', `/v1/webhooks/${foreign}`],
          ['PATCH', `/v1/webhooks/${foreign}`, { url: rx.url('/env/hijacked'), status: 'disabled' }],
          ['POST', `/v1/webhooks/${foreign}/rotate-secret`],
          ['POST', `/v1/webhooks/${foreign}/test`],
          ['GET', `/v1/webhooks/${foreign}/deliveries`],
          ['DELETE', `/v1/webhooks/${foreign}`],
        ];
        for (const [method, path, body] of calls) {
          const res = await http(api.origin, method, path, { key, body });
          expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, 'not_found']);
        }
      }
      const intact = await http(api.origin, 'GET', `/v1/webhooks/${liveHook.id}`, { key: live.apiKey });
      expect(intact.body).toMatchObject({ url: rx.url('/env/live'), status: 'enabled' });
      expect(rx.forPath('/env/hijacked')).toHaveLength(0);

      // A test-mode code's events (qr.created, qr.scanned through the scan host and the worker, lead.captured from a
      // form post), a test batch's (its codes' qr.created, batch.completed) and the ping reach the test endpoint only.
      const create = async (key: string, target: object) => {
        const res = await http(api.origin, 'POST', '/v1/qr-codes', { key, body: { target } });
        expect(res.status).toBe(201);
        return res.body as { id: string; short_code: string };
      };
      const testCode = await create(test.apiKey, { type: 'url', destination: 'https://example.com/test' });
      const testForm = await create(test.apiKey, { type: 'form', title: 'Test form', fields: [{ name: 'email', label: 'E-mail', type: 'email', required: true }] });
      const scanned = await fetch(`${scan.origin}/${testCode.short_code}`, { redirect: 'manual', headers: { 'user-agent': DESKTOP } });
      expect(scanned.status).toBe(302);
      const posted = await fetch(`${scan.origin}/${testForm.short_code}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': DESKTOP, 'x-forwarded-for': '203.0.113.250' },
        body: new URLSearchParams({ email: 'ada@example.com', consent: 'yes' }).toString(),
      });
      expect(posted.status).toBe(200);
      const batch = await http(api.origin, 'POST', '/v1/batches', { key: test.apiKey, body: { items: [{ target: { type: 'text', text: 'b' } }] } });
      expect(batch.status).toBe(202);
      const batchDone = await eventually(async () => {
        const res = await http(api.origin, 'GET', `/v1/batches/${batch.body.id}`, { key: test.apiKey });
        return res.body.status === 'completed' && (res.body as { items: Array<{ qr_code_id: string }> });
      }, 20_000, 'the test batch');
      const ping = await http(api.origin, 'POST', `/v1/webhooks/${testHook.id}/test`, { key: test.apiKey });
      expect(ping.status).toBe(200);
      const wanted = [
        ['qr.created', testCode.id],
        ['qr.created', testForm.id],
        ['qr.scanned', testCode.id],
        ['lead.captured', testForm.id],
        ['qr.created', batchDone.items[0].qr_code_id],
        ['batch.completed', batch.body.id],
        ['ping', testHook.id],
      ];
      const testEvents = await eventually(async () => {
        const got = received('/env/test');
        return wanted.every(([type, id]) => got.some((e) => e.type === type && about(e) === id)) && got;
      }, 20_000, 'the test-mode events at the test endpoint');
      expect(testEvents.map((e) => [e.type, about(e)]).sort()).toEqual([...wanted].sort());

      // A live code's event reaches the live endpoint only; the live endpoint never had a delivery of a test event.
      const liveCode = await create(live.apiKey, { type: 'url', destination: 'https://example.com/live' });
      const liveEvents = await eventually(async () => received('/env/live').length > 0 && received('/env/live'), 20_000, 'the live event');
      expect(liveEvents.map((e) => [e.type, about(e)])).toEqual([['qr.created', liveCode.id]]);
      const liveDeliveries = await http(api.origin, 'GET', `/v1/webhooks/${liveHook.id}/deliveries`, { key: live.apiKey });
      expect(liveDeliveries.body.data.map((d: { event_id: string }) => d.event_id)).toEqual([liveEvents[0].id]);
      const testDeliveries = await http(api.origin, 'GET', `/v1/webhooks/${testHook.id}/deliveries?limit=100`, { key: test.apiKey });
      expect(testDeliveries.body.data.map((d: { event_id: string }) => d.event_id).sort()).toEqual(testEvents.map((e) => e.id).sort());
      expect(received('/env/test').map((e) => e.id)).not.toContain(liveEvents[0].id);

      // Events: each key lists and retrieves only its environment's; the other environment's event is 404.
      const list = async (key: string) => (await http(api.origin, 'GET', '/v1/events?limit=100', { key })).body.data.map((e: { id: string }) => e.id).sort();
      expect(await list(test.apiKey)).toEqual(testEvents.map((e) => e.id).sort());
      expect(await list(live.apiKey)).toEqual([liveEvents[0].id]);
      expect((await http(api.origin, 'GET', '/v1/events?type=qr.scanned', { key: live.apiKey })).body.data).toEqual([]);
      for (const [key, own, foreign] of [
        [test.apiKey, testEvents[0].id, liveEvents[0].id],
        [live.apiKey, liveEvents[0].id, testEvents[0].id],
      ]) {
        expect((await http(api.origin, 'GET', `/v1/events/${own}`, { key })).status).toBe(200);
        const res = await http(api.origin, 'GET', `/v1/events/${foreign}`, { key });
        expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
      }
    });
  });
});
