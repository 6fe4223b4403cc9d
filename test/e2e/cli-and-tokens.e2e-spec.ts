import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCOPES } from '../../src/common/auth/scopes';
import { createOrg, db, http, startApi, TestApp } from '../setup/app';

const ROOT = join(__dirname, '..', '..');

/** Runs the operator CLI from source, as `npm run -s cli` runs it compiled. */
function cli(args: string[], env: Record<string, string> = {}): { status: number | null; json: any; stdout: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', 'cli.ts'), ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status, json, stdout: r.stdout };
}

describe('operator CLI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApi();
  });
  afterAll(() => t.close());

  it('org:create prints one JSON document with a working key; key:create can make an expired key', async () => {
    const created = cli(['org:create', '--name', 'Acme', '--plan', 'plus', '--email', 'ops@acme.test', '--env', 'test', '--scopes', 'qr:read,qr:write']);
    expect(created.status).toBe(0);
    expect(created.stdout.trim().split('\n')).toHaveLength(1);
    expect(created.json).toEqual({ organization_id: expect.stringMatching(/^org_/), key_id: expect.stringMatching(/^key_/), api_key: expect.stringMatching(/^qr_test_[0-9A-Za-z]{32}$/) });
    const me = await http(t.origin, 'GET', '/v1/me', { key: created.json.api_key });
    expect(me.body).toMatchObject({ organization_name: 'Acme', plan: 'plus', environment: 'test', scopes: ['qr:read', 'qr:write'] });

    const expired = cli(['key:create', '--org', created.json.organization_id, '--expires-in-days', '0']);
    expect(expired.status).toBe(0);
    expect((await http(t.origin, 'GET', '/v1/me', { key: expired.json.api_key })).status).toBe(401);
    const live = cli(['key:create', '--org', created.json.organization_id, '--name', 'second']);
    expect(live.json.api_key).toMatch(/^qr_live_/);
    // Without --scopes a key gets every scope (the audit log's audit:read included).
    expect((await http(t.origin, 'GET', '/v1/me', { key: live.json.api_key })).body.scopes).toEqual([...SCOPES]);
  });

  it('fails with a JSON error and a non-zero exit code', () => {
    const unknown = cli(['key:create', '--org', 'org_doesnotexist0000000']);
    expect(unknown.status).not.toBe(0);
    expect(unknown.json.error.code).toBe('not_found');
    const usage = cli(['org:create', '--name', 'x']);
    expect(usage.status).not.toBe(0);
    expect(usage.json.error.message).toMatch(/--plan|--email/);
    const bad = cli(['nope']);
    expect(bad.status).not.toBe(0);
    expect(bad.json.error).toBeDefined();
    // Built-in names of JavaScript objects are unknown commands like any other.
    for (const name of ['constructor', '__proto__']) {
      const builtin = cli([name, '--help']);
      expect([name, builtin.status, builtin.json?.error?.code, builtin.json?.error?.message]).toEqual([name, 64, 'usage', expect.stringContaining(`Unknown command '${name}'`)]);
    }
    // An owner address the sign-in endpoints would refuse is refused here too (the owner could never sign in).
    for (const email of ['a..b@example.com', `${'x'.repeat(320)}@example.com`]) {
      const refused = cli(['org:create', '--name', 'Bad mail', '--plan', 'free', '--email', email]);
      expect([email, refused.status, refused.json?.error?.code, refused.json?.error?.field]).toEqual([email, 1, 'invalid_request', 'email']);
    }
    // A malformed PLANS_FILE is a configuration error (78), not an internal one.
    const plansFile = join(mkdtempSync(join(tmpdir(), 'plans-')), 'plans.json');
    writeFileSync(plansFile, '{bad');
    const plans = cli(['trash:empty', '--org', 'org_doesnotexist0000000'], { PLANS_FILE: plansFile });
    expect([plans.status, plans.json?.error?.code]).toEqual([78, 'config']);
    expect(plans.json.error.message).toMatch(/PLANS_FILE .* is not valid JSON/);
  });

  it("leaves nothing behind when a flag is refused, and holds names to the API's string rule", async () => {
    const name = `Half-${Date.now()}`;
    for (const extra of [['--env', 'staging'], ['--scopes', 'nope:scope']]) {
      const refused = cli(['org:create', '--name', name, '--plan', 'pro', '--email', 'half@acme.test', ...extra]);
      expect([extra[0], refused.status === 0, refused.json?.error?.code]).toEqual([extra[0], false, extra[0] === '--env' ? 'usage' : 'invalid_request']);
    }
    const rows = await db(t).execute<{ n: string }[]>('select count(*) as n from organizations where name = ?', [name]);
    expect(Number(rows[0].n)).toBe(0);
    const control = cli(['org:create', '--name', 'ctl\u001bname', '--plan', 'pro', '--email', 'ctl@acme.test']);
    expect([control.status === 0, control.json?.error?.code, control.json?.error?.field]).toEqual([false, 'invalid_request', 'name']);
    const org = await createOrg(t, { plan: 'pro' });
    const key = cli(['key:create', '--org', org.organizationId, '--name', 'a\u0001b']);
    expect([key.status === 0, key.json?.error?.field]).toEqual([false, 'name']);
    // org:plan with Redis unreachable: refused before anything changes (the scan processes could not be told).
    const code = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com/p' } } });
    const downgrade = cli(['org:plan', '--org', org.organizationId, '--plan', 'free'], { REDIS_URL: 'redis://127.0.0.1:1' });
    expect([downgrade.status === 0, downgrade.json?.error?.code]).toEqual([false, 'service_unavailable']);
    expect((await http(t.origin, 'GET', '/v1/me', { key: org.apiKey })).body.plan).toBe('pro');
    expect((await http(t.origin, 'GET', `/v1/qr-codes/${code.body.id}`, { key: org.apiKey })).status).toBe(200);
  });

  it('org:plan to free pauses every live dynamic code (its limit is 0); trash:empty never touches paused codes', async () => {
    const org = await createOrg(t, { plan: 'pro' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'text', text: `t${i}` } } });
      ids.push(res.body.id);
      await new Promise((r) => setTimeout(r, 5));
    }
    const down = cli(['org:plan', '--org', org.organizationId, '--plan', 'free']);
    expect(down.status).toBe(0);
    expect(down.json.plan).toBe('free');
    expect(down.json.paused.sort()).toEqual([...ids].sort());
    const paused = await http(t.origin, 'GET', '/v1/qr-codes?status=paused', { key: org.apiKey });
    expect(paused.body.data).toHaveLength(3);
    const emptied = cli(['trash:empty', '--org', org.organizationId]);
    expect(emptied.status).toBe(0);
    expect(emptied.json.deleted).toBe(0);
    expect((await http(t.origin, 'GET', '/v1/qr-codes?status=paused', { key: org.apiKey })).body.data).toHaveLength(3);
  });

  it('trash:empty deletes trashed codes permanently', async () => {
    const org = await createOrg(t, { plan: 'pro' });
    const code = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type: 'static', target: { type: 'text', text: 'bye' } } });
    await http(t.origin, 'DELETE', `/v1/qr-codes/${code.body.id}`, { key: org.apiKey });
    const emptied = cli(['trash:empty', '--org', org.organizationId]);
    expect(emptied.json).toEqual({ deleted: 1 });
    expect((await http(t.origin, 'GET', '/v1/qr-codes?status=trashed', { key: org.apiKey })).body.data).toEqual([]);
    expect((await http(t.origin, 'POST', `/v1/qr-codes/${code.body.id}/restore`, { key: org.apiKey })).status).toBe(404);
  });
});

describe('/v1/tokens (dashboard session token)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApi();
  });
  afterAll(() => t.close());

  const token = (org: string, extra: string[] = []) => cli(['dashboard-token', '--org', org, ...extra]).json.token as string;

  it('creates, lists, rotates and revokes keys', async () => {
    const org = await createOrg(t, { plan: 'pro' });
    const jwt = token(org.organizationId);
    const auth = { authorization: `Bearer ${jwt}` };
    const created = await http(t.origin, 'POST', '/v1/tokens', { headers: auth, body: { name: 'Zapier', scopes: ['qr:read'], expires_in_days: 30 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'api_key', name: 'Zapier', scopes: ['qr:read'], environment: 'live', revoked_at: null });
    expect(created.body.key).toMatch(/^qr_live_/);
    expect(created.body.key_prefix).toBe(created.body.key.slice(0, 12));
    expect((await http(t.origin, 'GET', '/v1/me', { key: created.body.key })).status).toBe(200);

    const listed = await http(t.origin, 'GET', '/v1/tokens', { headers: auth });
    expect(listed.body.data.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

    const rotated = await http(t.origin, 'POST', '/v1/tokens/rotate', { headers: auth, body: { key_id: created.body.id } });
    expect(rotated.status).toBe(201);
    expect(rotated.body).toMatchObject({ name: 'Zapier', scopes: ['qr:read'], expires_at: created.body.expires_at });
    expect(rotated.body.id).not.toBe(created.body.id);
    expect((await http(t.origin, 'GET', '/v1/me', { key: created.body.key })).status).toBe(401);
    expect((await http(t.origin, 'GET', '/v1/me', { key: rotated.body.key })).status).toBe(200);

    const revoked = await http(t.origin, 'DELETE', `/v1/tokens/${rotated.body.id}`, { headers: auth });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    expect((await http(t.origin, 'GET', '/v1/me', { key: rotated.body.key })).status).toBe(401);
  });

  it('refuses API keys, bad tokens and foreign key ids', async () => {
    const org = await createOrg(t);
    const withKey = await http(t.origin, 'GET', '/v1/tokens', { key: org.apiKey });
    expect(withKey.status).toBe(401);
    expect(withKey.body.error.message).toMatch(/^Dashboard session token required/);
    expect((await http(t.origin, 'GET', '/v1/tokens', { headers: { authorization: 'Bearer not.a.jwt' } })).status).toBe(401);
    expect((await http(t.origin, 'GET', '/v1/tokens')).status).toBe(401);
    const expired = token(org.organizationId, ['--expires-in', '0']);
    expect((await http(t.origin, 'GET', '/v1/tokens', { headers: { authorization: `Bearer ${expired}` } })).status).toBe(401);
    const other = await createOrg(t);
    const res = await http(t.origin, 'DELETE', `/v1/tokens/${org.keyId}`, { headers: { authorization: `Bearer ${token(other.organizationId)}` } });
    expect(res.status).toBe(404);
  });

  it('holds the free plan to one active key and a verified e-mail', async () => {
    const org = await createOrg(t, { plan: 'free' });
    const unverifiedToken = token(org.organizationId, ['--unverified']);
    const unverified = await http(t.origin, 'POST', '/v1/tokens', {
      headers: { authorization: `Bearer ${unverifiedToken}` },
      body: { name: 'x', scopes: ['qr:read'] },
    });
    expect(unverified.status).toBe(403);
    // Rotating makes a key too: the same rule.
    const rotated = await http(t.origin, 'POST', '/v1/tokens/rotate', { headers: { authorization: `Bearer ${unverifiedToken}` }, body: { key_id: org.keyId } });
    expect([rotated.status, rotated.body.error?.code]).toEqual([403, 'plan_restricted']);
    const second = await http(t.origin, 'POST', '/v1/tokens', {
      headers: { authorization: `Bearer ${token(org.organizationId)}` },
      body: { name: 'x', scopes: ['qr:read'] },
    });
    expect(second.status).toBe(403);
    expect(second.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 1, current_count: 1, plan_id: 'free' });
  });

  it('validates the body', async () => {
    const org = await createOrg(t);
    const headers = { authorization: `Bearer ${token(org.organizationId)}` };
    const bad = await http(t.origin, 'POST', '/v1/tokens', { headers, body: { name: 'x', scopes: ['qr:admin'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('scopes');
    const neg = await http(t.origin, 'POST', '/v1/tokens', { headers, body: { name: 'x', scopes: ['qr:read'], expires_in_days: -1 } });
    expect(neg.body.error.field).toBe('expires_in_days');
  });
});
