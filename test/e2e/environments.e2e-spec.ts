import { addKey, createOrg, http, startApi, TestApp } from '../setup/app';

/** Test and live data are separate, as in Stripe: a key reads, lists and changes only its own environment's objects;
 * the other environment's ids are 404. */
describe('test and live environments', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApi();
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
});
