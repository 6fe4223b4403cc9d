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
});
