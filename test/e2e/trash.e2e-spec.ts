import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { addKey, createCode, createOrg, db, http, startApi, TestApp, TestOrg } from '../setup/app';
import { addMember, signIn } from '../setup/members';

/** The Trash through the API: POST /v1/trash/empty and DELETE /v1/trash/{id} (permanent deletion). */
describe('Trash', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await startApi({ GS1_RETIREMENT_DAYS: '365' });
  });
  afterAll(async () => {
    await api?.close();
  });

  const url = (n: number | string) => ({ target: { type: 'url', destination: `https://example.com/${n}` }, name: `code ${n}` });
  const trash = async (org: TestOrg, id: string) => expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${id}`, { key: org.apiKey })).status).toBe(200);
  const pause = (id: string) => db(api).execute(`update qr_codes set status = 'paused', deleted_at = now() where id = ?`, [id]);
  const listed = async (org: TestOrg, status: string): Promise<string[]> =>
    (await http(api.origin, 'GET', `/v1/qr-codes?status=${status}&limit=100`, { key: org.apiKey })).body.data.map((c: { id: string }) => c.id);

  describe('POST /v1/trash/empty', () => {
    it('deletes every trashed code for good, never a live or paused one, and says how many', async () => {
      const org = await createOrg(api);
      const [a, b, live, paused] = [await createCode(api, org, url(1)), await createCode(api, org, url(2)), await createCode(api, org, url(3)), await createCode(api, org, url(4))];
      await trash(org, a.id);
      await trash(org, b.id);
      await pause(paused.id);

      const res = await http(api.origin, 'POST', '/v1/trash/empty', { key: org.apiKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ object: 'trash', deleted: 2 });

      expect(await listed(org, 'trashed')).toEqual([]);
      expect(await listed(org, 'paused')).toEqual([paused.id]);
      expect((await http(api.origin, 'GET', `/v1/qr-codes/${live.id}`, { key: org.apiKey })).status).toBe(200);
      for (const gone of [a, b]) {
        expect((await http(api.origin, 'GET', `/v1/qr-codes/${gone.id}`, { key: org.apiKey })).status).toBe(404);
        expect((await http(api.origin, 'POST', `/v1/qr-codes/${gone.id}/restore`, { key: org.apiKey })).status).toBe(404);
      }
      // Emptying an empty Trash is no error.
      expect((await http(api.origin, 'POST', '/v1/trash/empty', { key: org.apiKey })).body).toEqual({ object: 'trash', deleted: 0 });
    });

    it('empties only this workspace and this environment', async () => {
      const org = await createOrg(api);
      const other = await createOrg(api);
      const testKey = await addKey(api, org.organizationId, { environment: 'test' });
      const mine = await createCode(api, org, url('live'));
      const mineTest = await createCode(api, testKey, url('test'));
      const theirs = await createCode(api, other, url('theirs'));
      await trash(org, mine.id);
      await trash(testKey, mineTest.id);
      await trash(other, theirs.id);

      expect((await http(api.origin, 'POST', '/v1/trash/empty', { key: testKey.apiKey })).body).toEqual({ object: 'trash', deleted: 1 });
      expect(await listed(testKey, 'trashed')).toEqual([]);
      expect(await listed(org, 'trashed')).toEqual([mine.id]);
      expect(await listed(other, 'trashed')).toEqual([theirs.id]);
    });

    it('names each deleted code in the audit log, with the key that emptied the Trash', async () => {
      const org = await createOrg(api);
      const code = await createCode(api, org, url('audited'));
      await trash(org, code.id);
      await http(api.origin, 'POST', '/v1/trash/empty', { key: org.apiKey });
      const log = await http(api.origin, 'GET', `/v1/audit-log?resource_id=${code.id}&action=qr_code.purged`, { key: org.apiKey });
      expect(log.status).toBe(200);
      expect(log.body.data).toHaveLength(1);
      expect(log.body.data[0]).toMatchObject({ action: 'qr_code.purged', actor: { type: 'api_key', id: org.keyId }, resource: { type: 'qr_code', id: code.id } });
    });

    it('needs qr:write, takes no body, and replays under the same Idempotency-Key', async () => {
      const org = await createOrg(api);
      const reader = await addKey(api, org.organizationId, { scopes: ['qr:read'] });
      const code = await createCode(api, org, url('scoped'));
      await trash(org, code.id);

      const denied = await http(api.origin, 'POST', '/v1/trash/empty', { key: reader.apiKey });
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('insufficient_scope');
      const withBody = await http(api.origin, 'POST', '/v1/trash/empty', { key: org.apiKey, body: { older_than: '2020-01-01' } });
      expect(withBody.status).toBe(400);
      expect(withBody.body.error.field).toBe('older_than');
      expect(await listed(org, 'trashed')).toEqual([code.id]);

      const headers = { 'idempotency-key': `empty-${code.id}` };
      const first = await http(api.origin, 'POST', '/v1/trash/empty', { key: org.apiKey, headers });
      const again = await http(api.origin, 'POST', '/v1/trash/empty', { key: org.apiKey, headers });
      expect(first.body).toEqual({ object: 'trash', deleted: 1 });
      expect(again.body).toEqual({ object: 'trash', deleted: 1 });
    });
  });

  describe('DELETE /v1/trash/{id}', () => {
    it('deletes one trashed code for good and leaves the rest of the Trash', async () => {
      const org = await createOrg(api);
      const [gone, kept] = [await createCode(api, org, url('one')), await createCode(api, org, url('two'))];
      await trash(org, gone.id);
      await trash(org, kept.id);

      const res = await http(api.origin, 'DELETE', `/v1/trash/${gone.id}`, { key: org.apiKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: gone.id, object: 'qr_code', deleted: true });
      expect(await listed(org, 'trashed')).toEqual([kept.id]);
      expect((await http(api.origin, 'POST', `/v1/qr-codes/${gone.id}/restore`, { key: org.apiKey })).status).toBe(404);

      const twice = await http(api.origin, 'DELETE', `/v1/trash/${gone.id}`, { key: org.apiKey });
      expect(twice.status).toBe(404);
      expect(twice.body.error.code).toBe('not_found');
    });

    it('is 404 for a live, paused, foreign or malformed id, and changes nothing', async () => {
      const org = await createOrg(api);
      const other = await createOrg(api);
      const live = await createCode(api, org, url('live'));
      const paused = await createCode(api, org, url('paused'));
      const theirs = await createCode(api, other, url('theirs'));
      await pause(paused.id);
      await trash(other, theirs.id);

      for (const id of [live.id, paused.id, theirs.id, 'qr_doesnotexist', 'not-an-id']) {
        const res = await http(api.origin, 'DELETE', `/v1/trash/${id}`, { key: org.apiKey });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
      expect((await http(api.origin, 'GET', `/v1/qr-codes/${live.id}`, { key: org.apiKey })).status).toBe(200);
      expect(await listed(org, 'paused')).toEqual([paused.id]);
      expect(await listed(other, 'trashed')).toEqual([theirs.id]);
    });

    it('needs qr:write', async () => {
      const org = await createOrg(api);
      const reader = await addKey(api, org.organizationId, { scopes: ['qr:read'] });
      const code = await createCode(api, org, url('read-only'));
      await trash(org, code.id);
      const res = await http(api.origin, 'DELETE', `/v1/trash/${code.id}`, { key: reader.apiKey });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      expect(await listed(org, 'trashed')).toEqual([code.id]);
    });

    it('retires a dynamic GS1 code\'s identifier, as the Trash retention does', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      const other = await createOrg(api, { plan: 'pro' });
      const body = { type: 'gs1', mode: 'dynamic', primary_key: { ai: '01', value: randomGtin() }, destination: 'https://brand.example/p' };
      const code = await createCode(api, org, body);
      await trash(org, code.id);
      expect((await http(api.origin, 'DELETE', `/v1/trash/${code.id}`, { key: org.apiKey })).status).toBe(200);
      const again = await http(api.origin, 'POST', '/v1/qr-codes', { key: other.apiKey, body });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('gs1_identifier_retired');
    });
  });

  it('documents both operations in the served OpenAPI document', async () => {
    const doc = (await (await fetch(`${api.origin}/docs/openapi.json`)).json()) as any;
    expect(doc.paths['/v1/trash/empty'].post.responses['200']).toBeDefined();
    expect(doc.paths['/v1/trash/{id}'].delete.responses['200']).toBeDefined();
  });
  describe('POST /v1/qr-codes/{id}/restore', () => {
    it('emits qr.restored, and qr.updated as well when a signed-in user restores from the dashboard', async () => {
      const org = await createOrg(api, { plan: 'pro' });
      expect((await http(api.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: 'https://hooks.example.com/x', events: ['qr.restored', 'qr.updated'] } })).status).toBe(201);
      const owner = `owner-${Date.now().toString(36)}@example.com`;
      await addMember(api, org.organizationId, owner, 'owner');
      const session = await signIn(api, owner);
      const [byKey, bySession] = [await createCode(api, org, url('key')), await createCode(api, org, url('session'))];
      await trash(org, byKey.id);
      await trash(org, bySession.id);
      expect((await http(api.origin, 'POST', `/v1/qr-codes/${byKey.id}/restore`, { key: org.apiKey })).status).toBe(200);
      expect((await http(api.origin, 'POST', `/v1/qr-codes/${bySession.id}/restore`, { key: session.token })).status).toBe(200);

      const events = (await http(api.origin, 'GET', '/v1/events?limit=100', { key: org.apiKey })).body.data as { type: string; data: { id: string; deleted_at?: string } }[];
      const about = (id: string) => events.filter((e) => e.data.id === id).map((e) => [e.type, e.data.deleted_at ?? 'not deleted']).sort();
      expect(about(byKey.id)).toEqual([['qr.restored', 'not deleted']]);
      expect(about(bySession.id)).toEqual([['qr.restored', 'not deleted'], ['qr.updated', 'not deleted']]);
    });
  });
});
