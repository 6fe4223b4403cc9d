import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { createOrg, http, isolatedRedisUrl, startApi, startScan, TestApp, TestOrg } from '../setup/app';

const ROOT = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const runtime = require('../../scripts/lib/runtime') as {
  localSecrets(o?: { create?: boolean }): Record<string, string>;
  applyLocalRuntime(env: Record<string, string | undefined>): void;
};

const sign = (secret: string, claims: Record<string, unknown>, opts: { iss?: string; aud?: string } = {}) => {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setSubject('user_1').setIssuedAt().setExpirationTime('10m');
  if (opts.iss) jwt.setIssuer(opts.iss);
  if (opts.aud) jwt.setAudience(opts.aud);
  return jwt.sign(new TextEncoder().encode(secret));
};

/** Network trust and secrets: no public default secret, iss/aud checks, and X-Forwarded-For believed only from a
 * proxy that is named. */
describe('trust and secrets', () => {
  let api: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    api = await startApi();
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(() => api?.close());

  it('the api process refuses to start without APP_SECRET or a dashboard verifier', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', PORT: '0', SCAN_PORT: '0' };
    delete env.DASHBOARD_JWT_SECRET;
    delete env.APP_SECRET;
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', 'main.api.ts')], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/DASHBOARD_JWT_SECRET or DASHBOARD_JWKS_URL is required/);
    expect(r.stdout + r.stderr).toMatch(/APP_SECRET is required/);
  });

  it('the api process stops with a configuration error (78, no stack) on a malformed PLANS_FILE', () => {
    const plansFile = join(mkdtempSync(join(tmpdir(), 'plans-')), 'plans.json');
    writeFileSync(plansFile, '{"pro": {"requests_per_minute": "fast"}}');
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', 'main.api.ts')], {
      env: { ...process.env, LOG_LEVEL: 'silent', PORT: '0', PLANS_FILE: plansFile },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toMatch(/PLANS_FILE .*: bad value for "pro.requests_per_minute"/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a token signed with the former public default secret is refused', async () => {
    const forged = await sign('scanlink-local-dashboard-secret', { org_id: org.organizationId, email: 'x@example.com', email_verified: true });
    const res = await http(api.origin, 'POST', '/v1/tokens', { headers: { authorization: `Bearer ${forged}` }, body: { name: 'pwned', scopes: ['qr:read'] } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('checks iss and aud when DASHBOARD_JWT_ISSUER / DASHBOARD_JWT_AUDIENCE are set', async () => {
    const strict = await startApi({ DASHBOARD_JWT_ISSUER: 'https://idp.example.com/', DASHBOARD_JWT_AUDIENCE: 'scanlink' });
    try {
      const secret = strict.config.dashboardJwtSecret!;
      const claims = { org_id: org.organizationId, email: 'o@example.com', email_verified: true };
      const list = (token: string) => http(strict.origin, 'GET', '/v1/tokens', { headers: { authorization: `Bearer ${token}` } });
      expect((await list(await sign(secret, claims))).status).toBe(401);
      expect((await list(await sign(secret, claims, { iss: 'https://evil.example.com/', aud: 'scanlink' }))).status).toBe(401);
      expect((await list(await sign(secret, claims, { iss: 'https://idp.example.com/', aud: 'other' }))).status).toBe(401);
      expect((await list(await sign(secret, claims, { iss: 'https://idp.example.com/', aud: 'scanlink' }))).status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  it('npm run local keeps random secrets in its data directory, where the CLI finds them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanlink-local-'));
    const before = process.env.LOCAL_DATA_DIR;
    process.env.LOCAL_DATA_DIR = dir;
    try {
      expect(runtime.localSecrets()).toEqual({});
      const first = runtime.localSecrets({ create: true });
      expect(first.APP_SECRET.length).toBeGreaterThanOrEqual(32);
      expect(first.DASHBOARD_JWT_SECRET).not.toBe(first.APP_SECRET);
      expect(runtime.localSecrets({ create: true })).toEqual(first);
      expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
      const env: Record<string, string | undefined> = { DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x' };
      runtime.applyLocalRuntime(env);
      expect(env.DASHBOARD_JWT_SECRET).toBe(first.DASHBOARD_JWT_SECRET);
      expect(env.APP_SECRET).toBe(first.APP_SECRET);
    } finally {
      if (before === undefined) delete process.env.LOCAL_DATA_DIR;
      else process.env.LOCAL_DATA_DIR = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('by default X-Forwarded-For is not believed: a client cannot pick its address to pass the lead-form limit', async () => {
    const scan = await startScan({ TRUST_PROXY: undefined, LEAD_RATE_LIMIT_PER_HOUR: '2', REDIS_URL: isolatedRedisUrl(14) });
    try {
      const form = await http(api.origin, 'POST', '/v1/qr-codes', {
        key: org.apiKey,
        body: { target: { type: 'form', title: 'T', fields: [{ name: 'email', label: 'E-mail', type: 'email' }] } },
      });
      const post = (i: number) =>
        http(scan.origin, 'POST', `/${form.body.short_code}`, {
          rawBody: 'email=a%40example.com',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `198.51.100.${i}` },
        });
      const statuses = [];
      for (let i = 1; i <= 4; i++) statuses.push((await post(i)).status);
      expect(statuses).toEqual([400, 400, 429, 429]);
    } finally {
      await scan.close();
    }
  });
});
