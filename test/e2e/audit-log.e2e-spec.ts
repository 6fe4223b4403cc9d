import { randomBase62 } from '../../src/common/ids';
import { createOrg, addKey, http, startApi, TestApp } from '../setup/app';
import { addMember, signIn } from '../setup/members';

const email = (who: string) => `${who}-${randomBase62(8).toLowerCase()}@example.com`;

/** The audit log: who changed what, from every surface, with before/after values and secrets redacted. */
describe('audit log', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api?.close());

  it('answers who re-pointed a code, and when, in one query', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const created = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { name: 'Flyer', type: 'dynamic', target: { type: 'url', destination: 'https://a.example.com/' } } });
    expect(created.status).toBe(201);
    const owner = email('own');
    await addMember(api, org.organizationId, owner, 'owner');
    const s = await signIn(api, owner);
    const patched = await http(api.origin, 'PATCH', `/v1/qr-codes/${created.body.id}`, { key: s.token, body: { target: { type: 'url', destination: 'https://b.example.com/' } } });
    expect(patched.status).toBe(200);

    const log = await http(api.origin, 'GET', `/v1/audit-log?resource_id=${created.body.id}`, { key: s.token });
    expect(log.status).toBe(200);
    const [updated, creation] = log.body.data;
    expect(log.body.data).toHaveLength(2);
    expect(creation).toMatchObject({ object: 'audit_log_entry', action: 'qr_code.created', actor: { type: 'api_key', id: org.keyId }, resource: { type: 'qr_code', id: created.body.id } });
    expect(updated).toMatchObject({
      id: expect.stringMatching(/^aud_/),
      action: 'qr_code.updated',
      actor: { type: 'user', id: s.body.user.id, email: owner },
      resource: { type: 'qr_code', id: created.body.id },
      request_id: patched.headers.get('request-id'),
      ip_country: null,
    });
    expect(updated.changes.target[0]).toMatchObject({ destination: 'https://a.example.com/' });
    expect(updated.changes.target[1]).toMatchObject({ destination: 'https://b.example.com/' });
    // Filters: by actor and action.
    const byActor = await http(api.origin, 'GET', `/v1/audit-log?actor_id=${s.body.user.id}&action=qr_code.updated`, { key: s.token });
    expect(byActor.body.data.map((e: any) => e.id)).toEqual([updated.id]);
  });

  it('redacts secrets: a new API key and a webhook secret appear as "[redacted]"; a password never appears', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const owner = email('own');
    await addMember(api, org.organizationId, owner, 'owner');
    const s = await signIn(api, owner);
    const key = await http(api.origin, 'POST', '/v1/tokens', { key: s.token, body: { name: 'CI', scopes: ['qr:read'] } });
    expect(key.status).toBe(201);
    const hook = await http(api.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: 'https://hooks.example.com/x', events: ['qr.created'] } });
    expect(hook.status).toBe(201);
    const invite = await http(api.origin, 'POST', '/v1/members', { key: s.token, body: { email: email('inv'), role: 'viewer' } });
    expect(invite.status).toBe(201);
    const all = await http(api.origin, 'GET', '/v1/audit-log?limit=100', { key: s.token });
    expect(all.status).toBe(200);
    const text = JSON.stringify(all.body);
    expect(text).not.toContain(key.body.key);
    expect(text).not.toContain(hook.body.secret);
    const keyEntry = all.body.data.find((e: any) => e.action === 'api_key.created' && e.resource.id === key.body.id);
    expect(keyEntry.actor).toMatchObject({ type: 'user', id: s.body.user.id });
    expect(keyEntry.changes.key_hash).toEqual([null, '[redacted]']);
    const hookEntry = all.body.data.find((e: any) => e.action === 'webhook_endpoint.created');
    expect(hookEntry.actor).toEqual({ type: 'api_key', id: org.keyId });
    expect(hookEntry.changes.secret_enc).toEqual([null, '[redacted]']);
    expect(all.body.data.find((e: any) => e.action === 'member.invited')).toMatchObject({ resource: { type: 'member', id: invite.body.id }, changes: { role: [null, 'viewer'] } });
    expect(all.body.data.find((e: any) => e.action === 'session.created')).toMatchObject({ actor: { type: 'user', id: s.body.user.id } });

    // Paging with a cursor.
    const page1 = await http(api.origin, 'GET', '/v1/audit-log?limit=2', { key: s.token });
    expect(page1.body.has_more).toBe(true);
    const page2 = await http(api.origin, 'GET', `/v1/audit-log?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { key: s.token });
    expect(page2.status).toBe(200);
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
    expect((await http(api.origin, 'GET', `/v1/audit-log?limit=2&action=member.invited&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { key: s.token })).status).toBe(400);
  });

  it('is for owners and admins, and keys with audit:read', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const viewer = email('view');
    await addMember(api, org.organizationId, viewer, 'viewer');
    const v = await signIn(api, viewer);
    const denied = await http(api.origin, 'GET', '/v1/audit-log', { key: v.token });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
    const narrow = await addKey(api, org.organizationId, { scopes: ['qr:read'] });
    expect((await http(api.origin, 'GET', '/v1/audit-log', { key: narrow.apiKey })).status).toBe(403);
    const auditor = await addKey(api, org.organizationId, { scopes: ['audit:read'] });
    expect((await http(api.origin, 'GET', '/v1/audit-log', { key: auditor.apiKey })).status).toBe(200);
    // Another workspace's entries are not visible.
    const other = await createOrg(api, { plan: 'pro' });
    const listed = await http(api.origin, 'GET', `/v1/audit-log?resource_id=${other.keyId}`, { key: auditor.apiKey });
    expect(listed.body.data).toEqual([]);
  });
});
