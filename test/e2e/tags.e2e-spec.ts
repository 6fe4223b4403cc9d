import { addKey, createCode, createOrg, db, http, startApi, TestApp } from '../setup/app';

/** GET /v1/tags: the workspace's tags with the number of live codes carrying each. */
describe('GET /v1/tags', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(async () => {
    await api?.close();
  });

  const code = (tags: string[], n = Math.random()) => ({ target: { type: 'url', destination: `https://example.com/${n}` }, tags });

  it('lists each tag of the live codes once, by name, with how many live codes carry it', async () => {
    const org = await createOrg(api);
    const other = await createOrg(api);
    await createCode(api, org, code(['spring', 'lobby']));
    await createCode(api, org, code(['spring']));
    await createCode(api, org, code(['Zed', 'ärger']));
    await createCode(api, org, code([]));
    const trashed = await createCode(api, org, code(['spring', 'only-trashed']));
    const paused = await createCode(api, org, code(['lobby', 'only-paused']));
    await http(api.origin, 'DELETE', `/v1/qr-codes/${trashed.id}`, { key: org.apiKey });
    await db(api).execute(`update qr_codes set status = 'paused', deleted_at = now() where id = ?`, [paused.id]);
    await createCode(api, other, code(['spring', 'foreign']));
    const testKey = await addKey(api, org.organizationId, { environment: 'test' });
    await createCode(api, testKey, code(['test-only']));

    const res = await http(api.origin, 'GET', '/v1/tags', { key: org.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'list',
      data: [
        { object: 'tag', name: 'Zed', qr_code_count: 1 },
        { object: 'tag', name: 'lobby', qr_code_count: 1 },
        { object: 'tag', name: 'spring', qr_code_count: 2 },
        { object: 'tag', name: 'ärger', qr_code_count: 1 },
      ],
      has_more: false,
      next_cursor: null,
    });
    expect((await http(api.origin, 'GET', '/v1/tags', { key: testKey.apiKey })).body.data).toEqual([{ object: 'tag', name: 'test-only', qr_code_count: 1 }]);
  });

  it('pages by cursor, each tag once, and refuses a bad limit, cursor or parameter', async () => {
    const org = await createOrg(api);
    for (const t of ['a', 'b', 'c', 'd', 'e']) await createCode(api, org, code([t, 'all']));
    const names: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await http(api.origin, 'GET', `/v1/tags?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: org.apiKey });
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      names.push(...page.body.data.map((t: { name: string }) => t.name));
      if (!page.body.has_more) break;
      cursor = page.body.next_cursor;
    }
    expect(names).toEqual(['a', 'all', 'b', 'c', 'd', 'e']);

    for (const [query, field] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['cursor=forged.sig', 'cursor'], ['search=x', 'search']]) {
      const bad = await http(api.origin, 'GET', `/v1/tags?${query}`, { key: org.apiKey });
      expect(bad.status).toBe(400);
      expect(bad.body.error.field).toBe(field);
    }
  });

  it('needs qr:read, and an empty workspace has no tags', async () => {
    const org = await createOrg(api);
    expect((await http(api.origin, 'GET', '/v1/tags', { key: org.apiKey })).body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    const narrow = await addKey(api, org.organizationId, { scopes: ['analytics:read'] });
    const denied = await http(api.origin, 'GET', '/v1/tags', { key: narrow.apiKey });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
  });
});
