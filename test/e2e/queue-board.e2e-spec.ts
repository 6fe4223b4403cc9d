import { startApi, TestApp } from '../setup/app';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Bull Board at /admin/queues on the api: only with ADMIN_TOKEN, behind HTTP Basic (any user, password = token). */
describe('queue dashboard', () => {
  let withBoard: TestApp;
  let without: TestApp;

  beforeAll(async () => {
    [withBoard, without] = await Promise.all([startApi({ ADMIN_TOKEN }), startApi({ ADMIN_TOKEN: '' })]);
  });
  afterAll(async () => {
    await Promise.all([withBoard?.close(), without?.close()]);
  });

  it('is 404 when ADMIN_TOKEN is unset, even with credentials', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const res = await fetch(`${without.origin}${path}`, { headers: { authorization: basic('admin', ADMIN_TOKEN) } });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
  });

  it('asks for HTTP Basic with the token as password, pages and API alike', async () => {
    for (const path of ['/admin/queues', '/admin/queues/api/queues', '/admin/queues/static/x.js']) {
      for (const authorization of [undefined, basic('admin', 'wrong-wrong-wrong-wrong'), `Bearer ${ADMIN_TOKEN}`, basic(ADMIN_TOKEN, '')]) {
        const res = await fetch(`${withBoard.origin}${path}`, { headers: authorization ? { authorization } : {} });
        expect({ path, authorization, status: res.status }).toEqual({ path, authorization, status: 401 });
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
        expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'unauthorized', request_id: expect.stringMatching(/^req_/) });
      }
    }
  });

  it('serves the board and its queue API to any user name with the token', async () => {
    for (const user of ['admin', 'someone else', '']) {
      const page = await fetch(`${withBoard.origin}/admin/queues`, { headers: { authorization: basic(user, ADMIN_TOKEN) } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('Scanlink queues');
    }
    const api = await fetch(`${withBoard.origin}/admin/queues/api/queues`, { headers: { authorization: basic('admin', ADMIN_TOKEN) } });
    expect(api.status).toBe(200);
    const names = ((await api.json()) as { queues: Array<{ name: string }> }).queues.map((q) => q.name).sort();
    expect(names).toEqual(['batches', 'maintenance', 'webhook-deliveries']);
  });

  it('refuses state-changing requests from another site (Origin, Sec-Fetch-Site) with 403, credentials or not', async () => {
    const auth = basic('admin', ADMIN_TOKEN);
    const path = '/admin/queues/api/queues/batches/clean/failed';
    const crossSite: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site', origin: 'https://evil.example' }];
    for (const headers of crossSite) {
      const res = await fetch(`${withBoard.origin}${path}`, { method: 'PUT', headers: { authorization: auth, ...headers } });
      expect({ headers, status: res.status }).toEqual({ headers, status: 403 });
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    }
    // The board's own page posting to itself is let through.
    const same = await fetch(`${withBoard.origin}${path}`, { method: 'PUT', headers: { authorization: auth, origin: withBoard.origin, 'sec-fetch-site': 'same-origin' } });
    expect(same.status).not.toBe(403);
    await same.arrayBuffer();
    // Reading is not a state change.
    expect((await fetch(`${withBoard.origin}/admin/queues/api/queues`, { headers: { authorization: auth, 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
  });

  it("frames nowhere: the board's HTML carries frame-ancestors 'none'", async () => {
    const page = await fetch(`${withBoard.origin}/admin/queues`, { headers: { authorization: basic('admin', ADMIN_TOKEN) } });
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    await page.arrayBuffer();
  });

  it('limits failed logins per address: after 10 wrong passwords in a minute even the right one waits (429)', async () => {
    const from = { 'x-forwarded-for': '198.51.100.23' };
    const wrong = basic('admin', 'wrong-wrong-wrong-wrong');
    // Stay within one minute window.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 15_000) await new Promise((r) => setTimeout(r, left + 200));
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${withBoard.origin}/admin/queues`, { headers: { authorization: wrong, ...from } });
      expect(res.status).toBe(401);
      await res.arrayBuffer();
    }
    const blocked = await fetch(`${withBoard.origin}/admin/queues`, { headers: { authorization: basic('admin', ADMIN_TOKEN), ...from } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    // Another address is not held back.
    const other = await fetch(`${withBoard.origin}/admin/queues`, { headers: { authorization: basic('admin', ADMIN_TOKEN), 'x-forwarded-for': '198.51.100.24' } });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
  });
});
