import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { randomBase62 } from '../../src/common/ids';
import { addKey, createOrg, db, http, startApi, TestApp, writePlans } from '../setup/app';
import { addMember, lastMailTo, mailDataDir, PASSWORD, refreshCookieOf, signIn, tokenIn } from '../setup/members';

const ROOT = join(__dirname, '..', '..');
const email = (who: string) => `${who}-${randomBase62(8).toLowerCase()}@example.com`;

function cli(args: string[]): { status: number | null; json: any } {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', 'cli.ts'), ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status, json };
}

/** Members, sign-in and sessions (docs/members.md). */
describe('members and sessions', () => {
  let api: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mailDataDir();
    api = await startApi({ LOCAL_DATA_DIR: dataDir, PLANS_FILE: writePlans({ pro: { requests_per_minute: 100000 }, plus: { requests_per_minute: 100000, seats: 2 } }) });
  });
  afterAll(() => api?.close());

  it('org:create --email makes that user the owner; a sign-in link signs them in; /users/me lists the workspace', async () => {
    const owner = email('owner');
    const created = cli(['org:create', '--name', 'Members Co', '--plan', 'pro', '--email', owner]);
    expect(created.status).toBe(0);
    const link = cli(['sign-in-link', '--email', owner]);
    expect(link.status).toBe(0);
    expect(link.json.url).toMatch(/\/app\/sign-in\?token=[0-9A-Za-z]+$/);
    const verified = await http(api.origin, 'POST', '/v1/session/link/verify', { body: { token: link.json.token } });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ object: 'session', organization_id: created.json.organization_id, role: 'owner', user: { email: owner, name: null } });
    const again = await http(api.origin, 'POST', '/v1/session/link/verify', { body: { token: link.json.token } });
    expect(again.status).toBe(401);
    const me = await http(api.origin, 'GET', '/v1/users/me', { key: verified.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: verified.body.user.id,
      object: 'user',
      email: owner,
      name: null,
      has_password: false,
      memberships: [{ organization_id: created.json.organization_id, name: 'Members Co', role: 'owner' }],
    });
    // The CLI's dashboard token for the owner names the user and the role.
    const token = cli(['dashboard-token', '--org', created.json.organization_id]).json.token;
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: verified.body.user.id, org_id: created.json.organization_id, role: 'owner', email: owner });
  });

  it('signs in with a password: a 15-minute JWT with the claims, and an httpOnly SameSite=Strict refresh cookie', async () => {
    const org = await createOrg(api);
    const who = email('ana');
    const userId = await addMember(api, org.organizationId, who, 'editor');
    const res = await http(api.origin, 'POST', '/v1/session', { body: { email: who.toUpperCase(), password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'session',
      token: expect.any(String),
      expires_at: expect.any(String),
      user: { id: userId, email: who, name: null },
      organization_id: org.organizationId,
      role: 'editor',
    });
    const claims = JSON.parse(Buffer.from(res.body.token.split('.')[1], 'base64url').toString());
    const header = JSON.parse(Buffer.from(res.body.token.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('HS256');
    expect(claims).toMatchObject({ sub: userId, org_id: org.organizationId, email: who, email_verified: true, role: 'editor' });
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeGreaterThan(890);
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(900);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('scanlink_refresh='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(cookie).not.toMatch(/Secure/); // plain-http API (local mode)
    // The JWT works on ordinary /v1 routes with the role's scopes.
    expect((await http(api.origin, 'GET', '/v1/qr-codes', { key: res.body.token })).status).toBe(200);
    const me = await http(api.origin, 'GET', '/v1/me', { key: res.body.token });
    expect(me.body).toMatchObject({ organization_id: org.organizationId, environment: 'live' });
    expect(me.body.scopes).toEqual(['qr:read', 'qr:write', 'analytics:read', 'webhooks:read']);
  });

  it('answers unknown e-mails and wrong passwords alike (401 invalid_credentials, similar time) and limits failures to 10 a minute', async () => {
    const org = await createOrg(api);
    const who = email('bo');
    await addMember(api, org.organizationId, who, 'viewer');
    const time = async (body: object, ip: string) => {
      const t0 = performance.now();
      const res = await http(api.origin, 'POST', '/v1/session', { body, headers: { 'x-forwarded-for': ip } });
      return { res, ms: performance.now() - t0 };
    };
    const wrong = [];
    const unknown = [];
    for (let i = 0; i < 4; i++) {
      wrong.push(await time({ email: who, password: 'not the password!' }, `203.0.113.${i + 1}`));
      unknown.push(await time({ email: email('nobody'), password: 'not the password!' }, `203.0.113.${i + 11}`));
    }
    for (const { res } of [...wrong, ...unknown]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_credentials');
      expect(res.body.error.message).toBe(wrong[0].res.body.error.message);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const a = median(wrong.map((w) => w.ms));
    const b = median(unknown.map((w) => w.ms));
    expect(Math.abs(a - b)).toBeLessThan(Math.max(a, b) * 0.6 + 15);

    // Per e-mail: 10 failures (from any address) → 429, even with the right password.
    for (let i = 0; i < 6; i++) await time({ email: who, password: 'not the password!' }, `203.0.113.${i + 30}`);
    const blocked = await time({ email: who, password: PASSWORD }, '203.0.113.99');
    expect(blocked.res.status).toBe(429);
    expect(blocked.res.body.error.code).toBe('rate_limited');
    expect(Number(blocked.res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Per client address: 10 failures for various e-mails → 429 from that address.
    for (let i = 0; i < 10; i++) await time({ email: email('x'), password: 'nope nope nope' }, '203.0.113.200');
    const fromAddress = await time({ email: email('y'), password: 'nope nope nope' }, '203.0.113.200');
    expect(fromAddress.res.status).toBe(429);
  });

  it('rotates the refresh cookie; a reused refresh token revokes its whole family', async () => {
    const org = await createOrg(api);
    const who = email('cy');
    await addMember(api, org.organizationId, who, 'admin');
    const first = await signIn(api, who);
    const r1 = await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: first.cookie } });
    expect(r1.status).toBe(200);
    expect(r1.body).toMatchObject({ object: 'session', role: 'admin', organization_id: org.organizationId });
    const second = refreshCookieOf(r1.headers)!;
    expect(second).not.toBe(first.cookie);
    // The old token again: refused, and the family (including the new token) is revoked.
    const reuse = await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: first.cookie } });
    expect(reuse.status).toBe(401);
    expect((await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: second } })).status).toBe(401);
    // No cookie at all.
    expect((await http(api.origin, 'POST', '/v1/session/refresh')).status).toBe(401);
  });

  it('signs out one session, or every session of the user', async () => {
    const org = await createOrg(api);
    const who = email('di');
    await addMember(api, org.organizationId, who, 'viewer');
    const a = await signIn(api, who);
    const b = await signIn(api, who);
    const c = await signIn(api, who);
    const out = await http(api.origin, 'DELETE', '/v1/session', { headers: { cookie: a.cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join()).toMatch(/scanlink_refresh=;.*Max-Age=0/);
    expect((await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: a.cookie } })).status).toBe(401);
    // The ended session's cookie cannot end the others.
    const stale = await http(api.origin, 'DELETE', '/v1/session?all=true', { headers: { cookie: a.cookie } });
    expect([stale.status, stale.body.error?.code]).toEqual([401, 'unauthorized']);
    expect((await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: b.cookie } })).status).toBe(200);
    const all = await http(api.origin, 'DELETE', '/v1/session?all=true', { key: c.token });
    expect(all.status).toBe(204);
    expect((await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: c.cookie } })).status).toBe(401);
  });

  it('switches workspace for a user in two; a foreign workspace is 404; ids of another workspace are 404', async () => {
    const one = await createOrg(api, { name: 'One' });
    const two = await createOrg(api, { name: 'Two' });
    const stranger = await createOrg(api, { name: 'Stranger' });
    const who = email('ed');
    await addMember(api, one.organizationId, who, 'owner');
    await addMember(api, two.organizationId, who, 'viewer');
    const s = await signIn(api, who, PASSWORD, { organization_id: two.organizationId });
    expect(s.body).toMatchObject({ organization_id: two.organizationId, role: 'viewer' });
    const sw = await http(api.origin, 'POST', '/v1/session/switch', { key: s.token, body: { organization_id: one.organizationId }, headers: { cookie: s.cookie } });
    expect(sw.status).toBe(200);
    expect(sw.body).toMatchObject({ object: 'session', organization_id: one.organizationId, role: 'owner' });
    // The rotated cookie follows to the new workspace.
    const refreshed = await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: refreshCookieOf(sw.headers)! } });
    expect(refreshed.body.organization_id).toBe(one.organizationId);
    const foreign = await http(api.origin, 'POST', '/v1/session/switch', { key: s.token, body: { organization_id: stranger.organizationId } });
    expect(foreign.status).toBe(404);
    // A code of the stranger's workspace is 404 with this session, as with a key.
    const code = await http(api.origin, 'POST', '/v1/qr-codes', { key: stranger.apiKey, body: { name: 'x', type: 'static', target: { type: 'url', destination: 'https://example.com' } } });
    expect(code.status).toBe(201);
    expect((await http(api.origin, 'GET', `/v1/qr-codes/${code.body.id}`, { key: sw.body.token })).status).toBe(404);
  });

  it('API keys use the member endpoints: any key lists, a tokens:manage key manages below owner', async () => {
    const org = await createOrg(api);
    const reader = await addKey(api, org.organizationId, { scopes: ['qr:read'] });
    const listed = await http(api.origin, 'GET', '/v1/members', { key: reader.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.object).toBe('list');
    const refused = await http(api.origin, 'POST', '/v1/members', { key: reader.apiKey, body: { email: email('k1'), role: 'viewer' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    const invited = await http(api.origin, 'POST', '/v1/members', { key: org.apiKey, body: { email: email('k2'), role: 'editor' } });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ object: 'member', role: 'editor', status: 'invited' });
    const owner = await http(api.origin, 'POST', '/v1/members', { key: org.apiKey, body: { email: email('k3'), role: 'owner' } });
    expect(owner.status).toBe(403);
    const changed = await http(api.origin, 'PATCH', `/v1/members/${invited.body.id}`, { key: org.apiKey, body: { role: 'viewer' } });
    expect(changed.body.role).toBe('viewer');
    expect((await http(api.origin, 'DELETE', `/v1/members/${invited.body.id}`, { key: reader.apiKey })).status).toBe(403);
    expect((await http(api.origin, 'DELETE', `/v1/members/${invited.body.id}`, { key: org.apiKey })).body).toEqual({ id: invited.body.id, object: 'member', deleted: true });
    const page = await http(api.origin, 'GET', '/v1/members', { key: org.apiKey });
    expect(page.body.data.map((m: { id: string }) => m.id)).not.toContain(invited.body.id);
  });

  it('an API key on session-only routes is 401; tokens for admins and owners only', async () => {
    const org = await createOrg(api);
    expect((await http(api.origin, 'GET', '/v1/users/me', { key: org.apiKey })).status).toBe(401);
    expect((await http(api.origin, 'GET', '/v1/tokens', { key: org.apiKey })).status).toBe(401);
    const editor = email('ed');
    const admin = email('ad');
    await addMember(api, org.organizationId, editor, 'editor');
    await addMember(api, org.organizationId, admin, 'admin');
    const e = await signIn(api, editor);
    const a = await signIn(api, admin);
    const denied = await http(api.origin, 'GET', '/v1/tokens', { key: e.token });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
    expect((await http(api.origin, 'GET', '/v1/tokens', { key: a.token })).status).toBe(200);
  });

  it('invites by e-mail; the invitee accepts with a name and password, then signs in; seats count invitations', async () => {
    const org = await createOrg(api, { plan: 'plus' }); // seats: 2 in this test's plans file
    const owner = email('own');
    await addMember(api, org.organizationId, owner, 'owner');
    const o = await signIn(api, owner);
    const invitee = email('new');
    const invited = await http(api.origin, 'POST', '/v1/members', { key: o.token, body: { email: invitee, role: 'editor' } });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ id: expect.stringMatching(/^mem_/), object: 'member', user: { email: invitee, name: null }, role: 'editor', status: 'invited' });
    // The seat is taken by the pending invitation.
    const over = await http(api.origin, 'POST', '/v1/members', { key: o.token, body: { email: email('more'), role: 'viewer' } });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 2, current_count: 2, requested: 1, plan_id: 'plus' });

    const mail = lastMailTo(dataDir, invitee);
    expect(mail).toMatch(/\/app\/accept\?token=/);
    const token = tokenIn(mail)!;
    const short = await http(api.origin, 'POST', '/v1/invitations/accept', { body: { token, name: 'Sam', password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.field).toBe('password');
    const accepted = await http(api.origin, 'POST', '/v1/invitations/accept', { body: { token, name: 'Sam', password: PASSWORD } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ object: 'session', organization_id: org.organizationId, role: 'editor', user: { email: invitee, name: 'Sam' } });
    expect(refreshCookieOf(accepted.headers)).toBeDefined();
    expect((await http(api.origin, 'POST', '/v1/invitations/accept', { body: { token } })).status).toBe(401);
    const list = await http(api.origin, 'GET', '/v1/members', { key: accepted.body.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: any) => [m.user.email, m.role, m.status]).sort()).toEqual([[invitee, 'editor', 'active'], [owner, 'owner', 'active']].sort());
    await signIn(api, invitee);
    // Editors cannot invite.
    const byEditor = await http(api.origin, 'POST', '/v1/members', { key: accepted.body.token, body: { email: email('z'), role: 'viewer' } });
    expect(byEditor.status).toBe(403);
    expect(byEditor.body.error.code).toBe('insufficient_scope');
  });

  it("an invitation does not show the name a person gave another workspace until they accept it", async () => {
    const org = await createOrg(api, { plan: 'agency' });
    const owner = email('own');
    await addMember(api, org.organizationId, owner, 'owner');
    const o = await signIn(api, owner);
    // Someone already known from another workspace, with a name of their own.
    const elsewhere = await createOrg(api);
    const known = email('known');
    const knownId = await addMember(api, elsewhere.organizationId, known, 'editor');
    await db(api).execute('update users set name = ? where id = ?', ['Private Person', knownId]);
    const invited = await http(api.origin, 'POST', '/v1/members', { key: o.token, body: { email: known, role: 'viewer' } });
    expect(invited.status).toBe(201);
    expect(invited.body.user).toMatchObject({ email: known, name: null });
    const listed = (await http(api.origin, 'GET', '/v1/members', { key: o.token })).body.data.find((m: any) => m.user.email === known);
    expect(listed).toMatchObject({ status: 'invited', user: { name: null } });
    const accepted = await http(api.origin, 'POST', '/v1/invitations/accept', { body: { token: tokenIn(lastMailTo(dataDir, known))! } });
    expect(accepted.status).toBe(200);
    const member = (await http(api.origin, 'GET', '/v1/members', { key: o.token })).body.data.find((m: any) => m.user.email === known);
    expect(member).toMatchObject({ status: 'active', user: { name: 'Private Person' } });
  });

  it('protects the last owner (409 last_owner); a removed member loses /tokens and member operations at once and refresh after', async () => {
    const org = await createOrg(api);
    const owner = email('own');
    const adminEmail = email('adm');
    await addMember(api, org.organizationId, owner, 'owner');
    await addMember(api, org.organizationId, adminEmail, 'admin');
    const o = await signIn(api, owner);
    const a = await signIn(api, adminEmail);
    const members = (await http(api.origin, 'GET', '/v1/members', { key: o.token })).body.data;
    const ownerMember = members.find((m: any) => m.user.email === owner);
    const adminMember = members.find((m: any) => m.user.email === adminEmail);
    const demote = await http(api.origin, 'PATCH', `/v1/members/${ownerMember.id}`, { key: o.token, body: { role: 'admin' } });
    expect(demote.status).toBe(409);
    expect(demote.body.error.code).toBe('last_owner');
    const leave = await http(api.origin, 'DELETE', `/v1/members/${ownerMember.id}`, { key: o.token });
    expect(leave.status).toBe(409);
    expect(leave.body.error.code).toBe('last_owner');
    // An admin cannot remove an owner.
    expect((await http(api.origin, 'DELETE', `/v1/members/${ownerMember.id}`, { key: a.token })).status).toBe(403);

    expect((await http(api.origin, 'GET', '/v1/tokens', { key: a.token })).status).toBe(200);
    const removed = await http(api.origin, 'DELETE', `/v1/members/${adminMember.id}`, { key: o.token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ id: adminMember.id, object: 'member', deleted: true });
    expect((await http(api.origin, 'GET', '/v1/tokens', { key: a.token })).status).toBe(401);
    expect((await http(api.origin, 'GET', '/v1/members', { key: a.token })).status).toBe(401);
    expect((await http(api.origin, 'POST', '/v1/session/refresh', { headers: { cookie: a.cookie } })).status).toBe(401);
    // Foreign member ids are 404.
    const other = await createOrg(api);
    await addMember(api, other.organizationId, email('x'), 'owner');
    const otherMember = (await db(api).execute<{ id: string }[]>('select id from memberships where organization_id = ?', [other.organizationId]))[0];
    expect((await http(api.origin, 'PATCH', `/v1/members/${otherMember.id}`, { key: o.token, body: { role: 'viewer' } })).status).toBe(404);
  });

  it('e-mail link: 202 for any address, a link only for members, single use', async () => {
    const org = await createOrg(api);
    const who = email('fe');
    await addMember(api, org.organizationId, who, 'viewer', null);
    const unknownAddress = email('ghost');
    const r1 = await http(api.origin, 'POST', '/v1/session/link', { body: { email: who } });
    const r2 = await http(api.origin, 'POST', '/v1/session/link', { body: { email: unknownAddress } });
    expect(r1.status).toBe(202);
    expect(r2.status).toBe(202);
    expect(r2.body).toEqual(r1.body);
    let mail: string | undefined;
    for (let i = 0; i < 50 && !mail; i++) {
      mail = lastMailTo(dataDir, who);
      if (!mail) await new Promise((r) => setTimeout(r, 100));
    }
    expect(mail).toMatch(/\/app\/sign-in\?token=/);
    expect(lastMailTo(dataDir, unknownAddress)).toBeUndefined();
    const token = tokenIn(mail)!;
    // Stored hashed: the token itself is nowhere in the database.
    const rows = await db(api).execute<{ n: string }[]>('select count(*) as n from auth_tokens where token_hash = ?', [token]);
    expect(Number(rows[0].n)).toBe(0);
    const ok = await http(api.origin, 'POST', '/v1/session/link/verify', { body: { token } });
    expect(ok.status).toBe(200);
    expect(ok.body.role).toBe('viewer');
    expect((await http(api.origin, 'POST', '/v1/session/link/verify', { body: { token } })).status).toBe(401);
  });

  it('PATCH /v1/users/me sets a name and password; current_password is then required', async () => {
    const org = await createOrg(api);
    const who = email('gi');
    await addMember(api, org.organizationId, who, 'viewer', null);
    const link = cli(['sign-in-link', '--email', who]).json.token;
    const s = (await http(api.origin, 'POST', '/v1/session/link/verify', { body: { token: link } })).body;
    const set = await http(api.origin, 'PATCH', '/v1/users/me', { key: s.token, body: { name: 'Gi', password: PASSWORD } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ object: 'user', name: 'Gi', has_password: true });
    const missing = await http(api.origin, 'PATCH', '/v1/users/me', { key: s.token, body: { password: 'another long password' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('current_password');
    const changed = await http(api.origin, 'PATCH', '/v1/users/me', { key: s.token, body: { password: 'another long password', current_password: PASSWORD } });
    expect(changed.status).toBe(200);
    await signIn(api, who, 'another long password');
    // 150 emoji are 150 characters (within 12–256), though 300 UTF-16 units; 257 are too many.
    const emoji = '😀'.repeat(150);
    const wide = await http(api.origin, 'PATCH', '/v1/users/me', { key: s.token, body: { password: emoji, current_password: 'another long password' } });
    expect(wide.status).toBe(200);
    await signIn(api, who, emoji);
    const tooLong = await http(api.origin, 'PATCH', '/v1/users/me', { key: s.token, body: { password: '😀'.repeat(257), current_password: emoji } });
    expect([tooLong.status, tooLong.body.error.field]).toEqual([400, 'password']);
  });
});
