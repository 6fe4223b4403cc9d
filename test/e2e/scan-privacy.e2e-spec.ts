import Redis from 'ioredis';
import { createOrg, db, eventually, http, startApi, startScan, startWorker, TestApp, TestOrg } from '../setup/app';

/**
 * The whole scan path with real processes (api, scan, worker): scans and a lead form post from a client whose
 * address is known, then every table and every Redis value is searched for that address. It must appear nowhere.
 */
describe('scan privacy: the client IP is never stored', () => {
  const CLIENT_IP = '81.2.69.142';
  const CLIENT_IP_V6 = '2a03:2880:f003:c07:face:b00c::2';
  const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
  let api: TestApp;
  let scan: TestApp;
  let worker: { close(): Promise<void> };
  let org: TestOrg;

  beforeAll(async () => {
    api = await startApi();
    scan = await startScan();
    worker = await startWorker();
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await scan.close();
    await worker.close();
    await api.close();
  });

  const create = async (target: Record<string, unknown>) => {
    const res = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target } });
    expect(res.status).toBe(201);
    return res.body as { id: string; short_code: string };
  };

  it('counts scans with derived facts only, and no table or Redis value holds the address', async () => {
    const link = await create({ type: 'url', destination: 'https://example.com/landing' });
    const form = await create({
      type: 'form',
      title: 'Contact us',
      fields: [
        { name: 'email', label: 'E-mail', type: 'email', required: true },
        { name: 'name', label: 'Name', type: 'text' },
      ],
    });

    const scanOnce = (code: string, ip: string) =>
      fetch(`${scan.origin}/${code}`, {
        redirect: 'manual',
        headers: { 'user-agent': IPHONE, 'x-forwarded-for': ip, 'accept-language': 'en-GB,en;q=0.9', referer: 'https://news.example.org/story' },
      });
    expect((await scanOnce(link.short_code, CLIENT_IP)).status).toBe(302);
    expect((await scanOnce(link.short_code, CLIENT_IP_V6)).status).toBe(302);
    expect((await scanOnce(form.short_code, CLIENT_IP)).status).toBe(200);

    const post = await fetch(`${scan.origin}/${form.short_code}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'user-agent': IPHONE, 'x-forwarded-for': CLIENT_IP, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'ada@example.com', name: 'Ada', consent: 'on', website: '' }).toString(),
    });
    expect(post.status).toBe(200);

    // The worker stores the queued scans: the API reports them with the derived facts.
    const analytics = await eventually(async () => {
      const res = await http(api.origin, 'GET', `/v1/qr-codes/${link.id}/analytics`, { key: org.apiKey });
      return res.status === 200 && res.body.total_scans === 2 ? res.body : undefined;
    }, 20_000, 'two scans in analytics');
    expect(analytics.countries).toEqual(expect.arrayContaining([{ name: 'GB', count: 1 }, { name: 'US', count: 1 }]));
    expect(analytics.devices).toEqual([{ name: 'Mobile', count: 2 }]);
    expect(analytics.referrers).toEqual([{ name: 'news.example.org', count: 2 }]);
    expect(analytics.languages).toEqual([{ name: 'en', count: 2 }]);
    await eventually(async () => (await http(api.origin, 'GET', `/v1/qr-codes/${form.id}`, { key: org.apiKey })).body.target?.summary?.lead_count === 1, 10_000, 'lead stored');
    await eventually(async () => {
      const rows = await db(api).execute<{ n: string }[]>('select count(*) as n from scans where qr_code_id = ?', [form.id]);
      return Number(rows[0].n) === 1;
    }, 10_000, 'form page scan stored');

    // Every column of every table, as text.
    const em = db(api);
    const tables = await em.execute<{ table_name: string }[]>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['scans', 'scan_days', 'scan_day_values', 'leads', 'events']));
    for (const { table_name } of tables) {
      const hits = await em.execute<{ n: string }[]>(
        `select count(*) as n from "${table_name}" t where t::text like ? or t::text like ? or t::text ilike ?`,
        [`%${CLIENT_IP}%`, `%${CLIENT_IP_V6}%`, '%Mozilla/5.0%'],
      );
      expect({ table: table_name, hits: Number(hits[0].n) }).toEqual({ table: table_name, hits: 0 });
    }

    // Every Redis value (strings, lists, hashes, sets, streams) and every key name.
    const redis = new Redis(api.config.redisUrl);
    try {
      const keys = await redis.keys('*');
      for (const key of keys) {
        expect(key).not.toContain(CLIENT_IP);
        const type = await redis.type(key);
        let dump = '';
        if (type === 'string') dump = (await redis.get(key)) ?? '';
        else if (type === 'list') dump = (await redis.lrange(key, 0, -1)).join('\n');
        else if (type === 'hash') dump = JSON.stringify(await redis.hgetall(key));
        else if (type === 'set') dump = (await redis.smembers(key)).join('\n');
        else if (type === 'zset') dump = (await redis.zrange(key, 0, -1)).join('\n');
        else if (type === 'stream') dump = JSON.stringify(await redis.xrange(key, '-', '+'));
        expect({ key, leaked: dump.includes(CLIENT_IP) || dump.includes(CLIENT_IP_V6) }).toEqual({ key, leaked: false });
      }
    } finally {
      redis.disconnect();
    }
  });
});
