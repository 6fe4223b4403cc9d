import { DashboardAuthService } from '../../src/modules/tokens/dashboard-auth.service';
import { createOrg, db, http, startApi, TestApp, writePlans } from '../setup/app';
import { addMember, signIn } from '../setup/members';

/** Key management (/v1/tokens*): rate-limited per client address, idempotent POSTs, and rotation of an expired key. */
describe('/v1/tokens hardening', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api?.close());

  const session = async (organizationId: string) =>
    `Bearer ${await api.app.get(DashboardAuthService).mint({ organizationId, email: 'o@example.com', emailVerified: true, expiresInSeconds: 600 })}`;

  it("lets a member of a Free workspace use the dashboard: a session gets at least 120 requests a minute and spends none of the plan's monthly API quota", async () => {
    // The product's Free plan (the tests' default plans lift every per-minute limit).
    const free = await startApi({ PLANS_FILE: writePlans({ free: { requests_per_minute: 10, monthly_requests: 50 } }) });
    try {
      const org = await createOrg(free, { plan: 'free' });
      const email = `free-owner-${Date.now().toString(36)}@example.com`;
      await addMember(free, org.organizationId, email, 'owner');
      const session = await signIn(free, email);
      for (let i = 0; i < 55; i++) {
        const res = await http(free.origin, 'GET', '/v1/qr-codes?limit=1', { key: session.token });
        expect([i, res.status, res.headers.get('ratelimit-limit')]).toEqual([i, 200, '120']);
      }
      // The workspace's API key keeps its own window (10 a minute) and its whole monthly quota.
      const byKey = await http(free.origin, 'GET', '/v1/qr-codes?limit=1', { key: org.apiKey });
      expect([byKey.status, byKey.headers.get('ratelimit-limit')]).toEqual([200, '10']);
    } finally {
      await free.close();
    }
  });

  it('slows down token guessing: past 60 requests a minute from one address, 429 with Retry-After', async () => {
    const headers = { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.guess', 'x-forwarded-for': '192.0.2.77' };
    let limited;
    for (let i = 0; i < 125 && !limited; i++) {
      const res = await http(api.origin, 'GET', '/v1/tokens', { headers });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(401);
    }
    expect(limited).toBeDefined();
    expect(limited!.body.error.code).toBe('rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited!.headers.get('ratelimit-limit')).toBe('60');
    // Another address is not affected.
    const other = await http(api.origin, 'GET', '/v1/tokens', { headers: { ...headers, 'x-forwarded-for': '192.0.2.78' } });
    expect(other.status).toBe(401);
  });

  it('honours Idempotency-Key on POST /v1/tokens: one key is created, the retry gets the same answer', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const headers = { authorization: await session(org.organizationId), 'idempotency-key': 'new-key-1' };
    const body = { name: 'CI', scopes: ['qr:read'] };
    const first = await http(api.origin, 'POST', '/v1/tokens', { headers, body });
    const again = await http(api.origin, 'POST', '/v1/tokens', { headers, body });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const listed = await http(api.origin, 'GET', '/v1/tokens', { headers });
    expect(listed.body.data.filter((k: { name: string }) => k.name === 'CI')).toHaveLength(1);
  });

  it('rotating an expired key yields a key that works, with the old lifetime from now', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const authorization = await session(org.organizationId);
    const created = await http(api.origin, 'POST', '/v1/tokens', { headers: { authorization }, body: { name: 'Old', scopes: ['qr:read'], expires_in_days: 7 } });
    expect(created.status).toBe(201);
    await db(api).execute(`update api_keys set created_at = now() - interval '8 days', expires_at = now() - interval '1 day' where id = ?`, [created.body.id]);
    expect((await http(api.origin, 'GET', '/v1/me', { key: created.body.key })).status).toBe(401);
    const rotated = await http(api.origin, 'POST', '/v1/tokens/rotate', { headers: { authorization }, body: { key_id: created.body.id } });
    expect(rotated.status).toBe(201);
    expect((await http(api.origin, 'GET', '/v1/me', { key: rotated.body.key })).status).toBe(200);
    const days = (new Date(rotated.body.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThan(7.1);
  });

  it('creates keys asked for at the same moment, and rotates a key once when asked for it at the same moment', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const authorization = await session(org.organizationId);
    const created = await Promise.all(
      Array.from({ length: 6 }, (_, i) => http(api.origin, 'POST', '/v1/tokens', { headers: { authorization }, body: { name: `Parallel ${i}`, scopes: ['qr:read'] } })),
    );
    expect(created.map((r) => [r.status, r.body.error?.code])).toEqual(Array.from({ length: 6 }, () => [201, undefined]));
    const rotations = await Promise.all(
      Array.from({ length: 3 }, () => http(api.origin, 'POST', '/v1/tokens/rotate', { headers: { authorization }, body: { key_id: created[0].body.id } })),
    );
    // One rotation; the others find the key already revoked (never "no such key").
    expect(rotations.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    const listed = await http(api.origin, 'GET', '/v1/tokens', { headers: { authorization } });
    expect(listed.body.data.filter((k: { name: string; revoked_at: string | null }) => k.name === 'Parallel 0' && k.revoked_at === null)).toHaveLength(1);
  });
});
