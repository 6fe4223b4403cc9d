import { randomBase62 } from '../../src/common/ids';
import { createOrg, addKey, db, http, startApi, TestApp } from '../setup/app';
import { pdf, upload } from '../setup/files';
import { addMember, PASSWORD, signIn } from '../setup/members';

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

  it('records the country of the client address (never the address), for changes and sign-ins', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const ip = '81.2.69.160'; // a GeoLite2 address in GB
    const created = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, headers: { 'x-forwarded-for': ip }, body: { type: 'dynamic', target: { type: 'url', destination: 'https://a.example.com/' } } });
    expect(created.status).toBe(201);
    const patched = await http(api.origin, 'PATCH', `/v1/qr-codes/${created.body.id}`, { key: org.apiKey, headers: { 'x-forwarded-for': ip }, body: { name: 'Renamed' } });
    expect(patched.status).toBe(200);
    const owner = email('own');
    await addMember(api, org.organizationId, owner, 'owner');
    const signedIn = await http(api.origin, 'POST', '/v1/session', { headers: { 'x-forwarded-for': ip }, body: { email: owner, password: PASSWORD } });
    expect(signedIn.status).toBe(200);
    // From a private address (here: loopback, no forwarding) there is no country.
    const local = await http(api.origin, 'PATCH', `/v1/qr-codes/${created.body.id}`, { key: org.apiKey, body: { name: 'Again' } });
    expect(local.status).toBe(200);

    const log = await http(api.origin, 'GET', '/v1/audit-log?limit=100', { key: org.apiKey });
    const entry = (requestId: string | null) => log.body.data.find((e: any) => e.request_id === requestId);
    expect(entry(created.headers.get('request-id'))).toMatchObject({ action: 'qr_code.created', ip_country: 'GB' });
    expect(entry(patched.headers.get('request-id'))).toMatchObject({ action: 'qr_code.updated', ip_country: 'GB' });
    expect(entry(signedIn.headers.get('request-id'))).toMatchObject({ action: 'session.created', ip_country: 'GB', actor: { type: 'user', email: owner } });
    expect(entry(local.headers.get('request-id'))).toMatchObject({ action: 'qr_code.updated', ip_country: null });
    expect(JSON.stringify(log.body)).not.toContain(ip);
    const rows = await db(api).execute('select * from audit_log where organization_id = ?', [org.organizationId]);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(rows)).not.toContain(ip);
  });

  it('records changes made in plain SQL: a custom domain removed', async () => {
    const org = await createOrg(api, { plan: 'agency' });
    const hostname = `links-${randomBase62(8).toLowerCase()}.audit.example`;
    const made = await http(api.origin, 'POST', '/v1/domains', { key: org.apiKey, body: { hostname } });
    expect(made.status).toBe(201);
    const removed = await http(api.origin, 'DELETE', `/v1/domains/${made.body.id}`, { key: org.apiKey });
    expect(removed.status).toBe(200);
    const log = await http(api.origin, 'GET', `/v1/audit-log?resource_id=${made.body.id}`, { key: org.apiKey });
    expect(log.body.data.map((e: any) => e.action)).toEqual(['domain.deleted', 'domain.created']);
    expect(log.body.data[0]).toMatchObject({ actor: { type: 'api_key', id: org.keyId }, changes: { hostname: [hostname, null] }, request_id: removed.headers.get('request-id') });
  });

  it('records deletions of webhook endpoints, folders, templates and files, every secret rotation, and arrays as arrays', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const key = org.apiKey;
    const hook = await http(api.origin, 'POST', '/v1/webhooks', { key, body: { url: 'https://hooks.example.com/x', events: ['*'] } });
    expect((await http(api.origin, 'PATCH', `/v1/webhooks/${hook.body.id}`, { key, body: { events: ['qr.created'] } })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await http(api.origin, 'POST', `/v1/webhooks/${hook.body.id}/rotate-secret`, { key })).status).toBe(200);
    expect((await http(api.origin, 'DELETE', `/v1/webhooks/${hook.body.id}`, { key })).status).toBe(200);
    const hookLog = (await http(api.origin, 'GET', `/v1/audit-log?resource_id=${hook.body.id}`, { key })).body.data;
    expect(hookLog.map((e: any) => e.action)).toEqual(['webhook_endpoint.deleted', 'webhook_endpoint.updated', 'webhook_endpoint.updated', 'webhook_endpoint.updated', 'webhook_endpoint.created']);
    expect(hookLog[0].changes).toMatchObject({ url: ['https://hooks.example.com/x', null], secret_enc: ['[redacted]', null] });
    // Both rotations: the secret changed each time (redacted), and when the old one stops signing (not a secret).
    const [second, first] = [hookLog[1].changes, hookLog[2].changes];
    expect(first).toMatchObject({ secret_enc: ['[redacted]', '[redacted]'], previous_secret_expires_at: [null, expect.stringMatching(/^\d{4}-/)] });
    expect(second).toMatchObject({ secret_enc: ['[redacted]', '[redacted]'], previous_secret_expires_at: [first.previous_secret_expires_at[1], expect.stringMatching(/^\d{4}-/)] });
    expect(hookLog[3].changes.events).toEqual([['*'], ['qr.created']]);

    const folder = await http(api.origin, 'POST', '/v1/folders', { key, body: { name: 'Gone soon' } });
    expect((await http(api.origin, 'DELETE', `/v1/folders/${folder.body.id}`, { key })).status).toBe(200);
    const template = await http(api.origin, 'POST', '/v1/templates', { key, body: { name: 'Gone soon', design: { colors: { foreground: '#000000' } } } });
    expect(template.status).toBe(201);
    expect((await http(api.origin, 'DELETE', `/v1/templates/${template.body.id}`, { key })).status).toBe(200);
    const file = await upload(api, org, { filename: 'Gone soon', contentType: 'application/pdf', body: pdf() });
    expect(file.status).toBe(201);
    expect((await http(api.origin, 'DELETE', `/v1/files/${file.body.id}`, { key })).status).toBe(200);
    for (const [id, type, name] of [[folder.body.id, 'folder', 'Gone soon'], [template.body.id, 'template', 'Gone soon'], [file.body.id, 'file', file.body.name]]) {
      const log = (await http(api.origin, 'GET', `/v1/audit-log?resource_id=${id}`, { key })).body.data;
      expect([type, log.map((e: any) => e.action)]).toEqual([type, [`${type}.deleted`, `${type}.created`]]);
      expect([type, log[0].changes.name]).toEqual([type, [name, null]]);
    }
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
