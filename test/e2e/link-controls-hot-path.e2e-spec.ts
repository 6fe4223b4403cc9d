import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { createCode, createOrg, startApi, startScan, type TestApp, type TestOrg } from '../setup/app';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Link controls on the scan host's hot path (docs/link-controls.md, docs/scan-host.md "Smart URLs and link controls on
 * the hot path"): once a code is in the scan process's cache, its password page and its expired answers (by date and by
 * count, with and without expired_url) are decided without reading the database. Every query the scan process sends
 * to PostgreSQL is seen through its own ORM's query builder (the code reads of the cache go through it).
 */
describe('link controls on the hot path: no database read', () => {
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;
  const queries: string[] = [];

  beforeAll(async () => {
    [api, scan] = await Promise.all([startApi(), startScan()]);
    org = await createOrg(api, { plan: 'pro' });
    const knex = (scan.app.get(MikroORM).em as EntityManager).getConnection().getKnex();
    knex.on('query', (q: { sql: string }) => queries.push(q.sql));
  });
  afterAll(async () => {
    await Promise.all([scan?.close(), api?.close()]);
  });

  const scanOf = async (shortCode: string) => {
    const res = await fetch(`${scan.origin}/${shortCode}`, { redirect: 'manual', headers: { 'user-agent': IPHONE } });
    return { status: res.status, location: res.headers.get('location'), body: await res.text() };
  };
  /** The queries sent since `from`, but the domain map's refresh (every minute and on domain changes from any
   * process: not per request). */
  const readsSince = (from: number) => queries.slice(from).filter((sql) => !/\bfrom\s+"?domains"?\b/i.test(sql));

  it('password page, expired by date (410 page) and expired by count (302 to expired_url) read nothing once cached', async () => {
    const locked = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/locked' }, password: 'no reads 2026' });
    const capped = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/capped' }, max_scans: 1, expired_url: 'https://example.com/over' });
    const expiresAt = Date.now() + 2_000;
    const dated = await createCode(api, org, { target: { type: 'text', text: 'Until soon' }, expires_at: new Date(expiresAt).toISOString() });
    await sleep(300); // the api's invalidations of the new codes have reached the scan process

    // The first scan of each code fills the cache: that is the read the counter must see.
    const before = queries.length;
    expect((await scanOf(locked.short_code)).status).toBe(200);
    expect(await scanOf(capped.short_code)).toMatchObject({ status: 302, location: 'https://example.com/capped' });
    expect((await scanOf(dated.short_code)).status).toBe(200);
    const fills = readsSince(before);
    expect(fills.filter((sql) => /\bqr_codes\b/.test(sql)).length).toBeGreaterThanOrEqual(3);

    await sleep(Math.max(0, expiresAt - Date.now()) + 100);
    const from = queries.length;
    for (let i = 0; i < 5; i++) {
      const page = await scanOf(locked.short_code);
      expect(page.status).toBe(200);
      expect(page.body).toContain('This code is protected');
      expect(await scanOf(capped.short_code)).toMatchObject({ status: 302, location: 'https://example.com/over' });
      const expired = await scanOf(dated.short_code);
      expect(expired.status).toBe(410);
    }
    // Flushes of the scan buffer (Redis) and scan-number syncs (Redis) happen meanwhile; neither touches PostgreSQL.
    await sleep(600);
    expect(readsSince(from)).toEqual([]);
  });
});
