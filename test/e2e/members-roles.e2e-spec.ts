import { createOrg, http, startApi, TestApp, TestOrg } from '../setup/app';
import { addMember, signIn } from '../setup/members';

interface Operation {
  method: string;
  path: string;
  security: Record<string, string[]>[] | undefined;
  scope?: string;
}

/** Roles as scopes, driven from the OpenAPI document: a viewer's session gets 403 insufficient_scope on every write
 * operation (everything but GET, sign-in and the user's own record), and reads work. */
describe('roles on every documented operation', () => {
  let api: TestApp;
  let org: TestOrg;
  let viewer: string;
  let editor: string;
  let operations: Operation[];

  beforeAll(async () => {
    api = await startApi();
    org = await createOrg(api, { plan: 'pro' });
    const tag = org.organizationId.toLowerCase();
    await addMember(api, org.organizationId, `owner-${tag}@example.com`, 'owner');
    await addMember(api, org.organizationId, `viewer-${tag}@example.com`, 'viewer');
    await addMember(api, org.organizationId, `editor-${tag}@example.com`, 'editor');
    viewer = (await signIn(api, `viewer-${tag}@example.com`)).token;
    editor = (await signIn(api, `editor-${tag}@example.com`)).token;
    const doc = (await http(api.origin, 'GET', '/docs/openapi.json')).body;
    operations = [];
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
        operations.push({ method: method.toUpperCase(), path, security: op.security, scope: op['x-required-scope'] });
      }
    }
  });
  afterAll(() => api?.close());

  const takesSession = (op: Operation) => (op.security ?? []).some((s) => 'dashboard_token' in s);
  /** Writes a member does to their own session or record, which every role may do. */
  const SELF_SERVICE = new Set(['POST /v1/session/switch', 'PATCH /v1/users/me']);
  const urlOf = (op: Operation) => op.path.replace(/\{(\w+)\}/g, 'xyz0000000000000000');

  it('documents which operations take an API key, a session, or both', () => {
    const find = (m: string, p: string) => operations.find((o) => o.method === m && o.path === p)!;
    expect(find('POST', '/v1/qr-codes').security).toEqual([{ api_key: [] }, { dashboard_token: [] }]);
    expect(find('POST', '/v1/tokens').security).toEqual([{ dashboard_token: [] }]);
    expect(find('GET', '/v1/members').security).toEqual([{ api_key: [] }, { dashboard_token: [] }]);
    expect(find('GET', '/v1/users/me').security).toEqual([{ dashboard_token: [] }]);
    expect(find('POST', '/v1/session').security).toEqual([]);
    expect(find('POST', '/v1/invitations/accept').security).toEqual([]);
  });

  it('a viewer gets 403 insufficient_scope on every write', async () => {
    // A POST that only reads (the rule tester, scope qr:read) is not a write.
    const writes = operations.filter(
      (o) => o.method !== 'GET' && takesSession(o) && !SELF_SERVICE.has(`${o.method} ${o.path}`) && !o.scope?.endsWith(':read'),
    );
    expect(writes.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const op of writes) {
      const res = await http(api.origin, op.method, urlOf(op), { key: viewer, body: op.method === 'DELETE' ? undefined : {} });
      if (res.status !== 403 || res.body?.error?.code !== 'insufficient_scope') wrong.push(`${op.method} ${op.path} → ${res.status} ${res.body?.error?.code}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a viewer reads; an editor writes codes but not webhooks, keys, members or custom domains', async () => {
    expect((await http(api.origin, 'GET', '/v1/qr-codes', { key: viewer })).status).toBe(200);
    expect((await http(api.origin, 'GET', '/v1/members', { key: viewer })).status).toBe(200);
    const created = await http(api.origin, 'POST', '/v1/qr-codes', { key: editor, body: { name: 'By editor', type: 'static', target: { type: 'url', destination: 'https://example.com' } } });
    expect(created.status).toBe(201);
    const tag = org.organizationId.toLowerCase();
    const owner = (await signIn(api, `owner-${tag}@example.com`)).token;
    const domain = await http(api.origin, 'POST', '/v1/domains', { key: owner, body: { hostname: `qr-${tag.replace(/_/g, '-')}.example.org` } });
    expect(domain.status).toBe(201);
    const writes = [
      ['POST', '/v1/webhooks'],
      ['POST', '/v1/tokens'],
      ['POST', '/v1/members'],
      ['POST', '/v1/domains'],
      ['PATCH', `/v1/domains/${domain.body.id}`],
      ['POST', `/v1/domains/${domain.body.id}/verify`],
      ['DELETE', `/v1/domains/${domain.body.id}`],
    ];
    for (const [method, path] of writes) {
      const res = await http(api.origin, method, path, { key: editor, body: method === 'DELETE' || path.endsWith('/verify') ? undefined : {} });
      expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 403, 'insufficient_scope']);
    }
    expect((await http(api.origin, 'GET', `/v1/domains/${domain.body.id}`, { key: editor })).body.status).toBe('pending');
  });
});
