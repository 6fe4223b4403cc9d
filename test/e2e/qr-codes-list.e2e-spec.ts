import { createOrg, http, startApi, TestApp, TestOrg, db } from '../setup/app';

type Code = { id: string; name: string; kind: string; created_at: string; updated_at: string; scan_count: number | null; is_active: boolean; deleted_at?: string };

describe('GET /v1/qr-codes', () => {
  let t: TestApp;
  let org: TestOrg;
  let all: Code[];
  let folderId: string;

  const list = (query: string, key = org.apiKey) => http(t.origin, 'GET', `/v1/qr-codes?${query}`, { key });

  /** Follows next_cursor to the end. */
  async function walk(query: string): Promise<Code[]> {
    const seen: Code[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 100; i++) {
      const res = await list(`${query}&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('list');
      seen.push(...res.body.data);
      if (!res.body.has_more) {
        expect(res.body.next_cursor).toBeNull();
        return seen;
      }
      expect(res.body.data).toHaveLength(3);
      cursor = res.body.next_cursor;
    }
    throw new Error('pagination did not end');
  }

  beforeAll(async () => {
    t = await startApi();
    org = await createOrg(t, { plan: 'pro' });
    folderId = (await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: 'F' } })).body.id;
    const names = ['delta', 'Alpha', 'charlie', 'bravo', 'alpha', 'Echo', 'same', 'same', 'same', 'foxtrot', 'golf'];
    for (const [i, name] of names.entries()) {
      const body: Record<string, unknown> = { name, target: { type: 'text', text: name } };
      if (i % 3 === 0) body.type = 'static';
      if (i % 4 === 0) body.folder_id = folderId;
      const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body });
      expect(res.status).toBe(201);
    }
    // Ties: give several codes the same created_at and scan_count so the id tiebreak matters.
    const em = db(t);
    await em.execute(`update qr_codes set created_at = '2026-01-01T00:00:00Z', scan_count = case when kind = 'dynamic' then 5 else 0 end where organization_id = ? and name = 'same'`, [org.organizationId]);
    await em.execute(`update qr_codes set scan_count = 7 where organization_id = ? and kind = 'dynamic' and name in ('Alpha', 'bravo')`, [org.organizationId]);
    const first = await list('limit=100');
    all = first.body.data;
    expect(all).toHaveLength(11);
    const inactive = all.find((c) => c.kind === 'dynamic' && c.name === 'charlie')!;
    await http(t.origin, 'PATCH', `/v1/qr-codes/${inactive.id}`, { key: org.apiKey, body: { is_active: false } });
    const trashed = all.find((c) => c.name === 'golf')!;
    await http(t.origin, 'DELETE', `/v1/qr-codes/${trashed.id}`, { key: org.apiKey });
    all = (await list('limit=100')).body.data;
  });
  afterAll(() => t.close());

  it('is newest first by default, 25 per page', async () => {
    const res = await list('');
    expect(res.body.data.length).toBe(10);
    const times = res.body.data.map((c: Code) => Date.parse(c.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
  });

  const SORTS: Array<[string, (c: Code) => string | number]> = [
    ['created_at', (c) => Date.parse(c.created_at)],
    ['updated_at', (c) => Date.parse(c.updated_at)],
    ['name', (c) => c.name],
    ['scan_count', (c) => c.scan_count ?? 0],
  ];

  for (const [sort, key] of SORTS) {
    for (const order of ['asc', 'desc']) {
      it(`walks sort=${sort} order=${order} with no duplicate and no gap`, async () => {
        const walked = await walk(`sort=${sort}&order=${order}`);
        expect(walked.map((c) => c.id).sort()).toEqual(all.map((c) => c.id).sort());
        expect(new Set(walked.map((c) => c.id)).size).toBe(walked.length);
        if (sort !== 'name') {
          const values = walked.map(key) as number[];
          const sorted = [...values].sort((a, b) => (order === 'asc' ? a - b : b - a));
          expect(values).toEqual(sorted);
        }
      });
    }
  }

  it('keeps walking correctly when codes are created between pages', async () => {
    const first = await list('limit=4');
    await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { name: 'newcomer', target: { type: 'text', text: 'n' } } });
    const rest = await list(`limit=100&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    const ids = [...first.body.data, ...rest.body.data].map((c: Code) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of all) expect(ids).toContain(c.id);
    expect(rest.body.data.find((c: Code) => c.name === 'newcomer')).toBeUndefined();
    const newcomer = (await list('search=newcomer')).body.data[0];
    await http(t.origin, 'DELETE', `/v1/qr-codes/${newcomer.id}`, { key: org.apiKey });
    await db(t).execute(`delete from qr_codes where id = ?`, [newcomer.id]);
  });

  it('filters by kind', async () => {
    const stat = (await list('kind=static&limit=100')).body.data;
    expect(stat.length).toBeGreaterThan(0);
    expect(stat.every((c: Code) => c.kind === 'static')).toBe(true);
    const dyn = (await list('kind=dynamic&limit=100')).body.data;
    expect(dyn.length + stat.length).toBe(all.length);
  });

  it('filters by status (active, inactive, trashed) following the spec rules', async () => {
    const inactive = (await list('status=inactive&limit=100')).body.data;
    expect(inactive.map((c: Code) => c.name)).toEqual(['charlie']);
    const active = (await list('status=active&limit=100')).body.data;
    expect(active.length).toBe(all.length - 1);
    const trashed = (await list('status=trashed&limit=100')).body.data;
    expect(trashed.map((c: Code) => c.name)).toContain('golf');
    expect(trashed.every((c: Code) => typeof c.deleted_at === 'string')).toBe(true);
    expect((await list('status=paused')).body.data).toEqual([]);
    const byDeleted = await list('status=trashed&sort=deleted_at&order=asc');
    expect(byDeleted.status).toBe(200);
  });

  it('filters by folder', async () => {
    const inFolder = (await list(`folder_id=${folderId}&limit=100`)).body.data;
    expect(inFolder.length).toBeGreaterThan(0);
    expect(inFolder.every((c: { folder_id: string }) => c.folder_id === folderId)).toBe(true);
  });

  it('filters by tag (exact, as stored) and by target type, paging within the filter; an unknown type is a 400', async () => {
    const mk = async (name: string, body: Record<string, unknown>) =>
      (await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { name, ...body } })).body as Code;
    const other = await createOrg(t, { plan: 'pro' });
    const tagged = [
      await mk('tag-1', { target: { type: 'url', destination: 'https://example.com/1' }, tags: ['Spring', 'print'] }),
      await mk('tag-2', { target: { type: 'wifi', ssid: 'Cafe', encryption: 'WPA', password: 'secret-pass' }, tags: ['Spring'] }),
      await mk('tag-3', { target: { type: 'url', destination: 'https://example.com/3' }, tags: ['spring'] }),
    ];
    await http(t.origin, 'POST', '/v1/qr-codes', { key: other.apiKey, body: { name: 'foreign', target: { type: 'url', destination: 'https://example.com/x' }, tags: ['Spring'] } });
    const spring = await walk('tag=Spring');
    expect(spring.map((c) => c.name).sort()).toEqual(['tag-1', 'tag-2']);
    const wifi = (await list('type=wifi&limit=100')).body.data.map((c: Code) => c.name);
    expect(wifi).toEqual(['tag-2']);
    const urlsTagged = (await list('type=url&tag=Spring&limit=100')).body.data.map((c: Code) => c.name);
    expect(urlsTagged).toEqual(['tag-1']);
    const first = await list('tag=Spring&limit=1');
    const reused = await list(`tag=spring&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(reused.status).toBe(400);
    expect(reused.body.error.field).toBe('cursor');
    const bad = await list('type=fax');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', field: 'type' });
    for (const c of tagged) await http(t.origin, 'DELETE', `/v1/qr-codes/${c.id}`, { key: org.apiKey });
  });

  it('searches names case-insensitively, treating % and _ literally', async () => {
    const res = (await list('search=ALPHA')).body.data.map((c: Code) => c.name).sort();
    expect(res).toEqual(['Alpha', 'alpha']);
    expect((await list('search=%25')).body.data).toEqual([]);
    expect((await list('search=_')).body.data).toEqual([]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=', 'limit'],
    ['sort=colour', 'sort'],
    ['order=up', 'order'],
    ['status=gone', 'status'],
    ['kind=both', 'kind'],
    ['sort=deleted_at', 'sort'],
    ['sort=deleted_at&status=all', 'sort'],
    ['unknown=1', 'unknown'],
    ['cursor=garbage', 'cursor'],
    ['folder_id=nope', 'folder_id'],
  ])('refuses %s with 400 naming %s', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.field).toBe(field);
  });

  it('says a parameter was given twice', async () => {
    const res = await list('limit=1&limit=2');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'limit', message: expect.stringContaining('limit must be given once, not 2 times') });
  });

  it('refuses a cursor reused with other filters or a tampered one', async () => {
    const page = await list('limit=2&sort=name');
    const cursor: string = page.body.next_cursor;
    const reused = await list(`limit=2&sort=created_at&cursor=${encodeURIComponent(cursor)}`);
    expect(reused.status).toBe(400);
    expect(reused.body.error.field).toBe('cursor');
    const tampered = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
    expect((await list(`limit=2&sort=name&cursor=${encodeURIComponent(tampered)}`)).status).toBe(400);
    const sameFiltersOtherLimit = await list(`limit=5&sort=name&cursor=${encodeURIComponent(cursor)}`);
    expect(sameFiltersOtherLimit.status).toBe(200);
    const other = await createOrg(t, { plan: 'pro' });
    const foreign = await list(`limit=2&sort=name&cursor=${encodeURIComponent(cursor)}`, other.apiKey);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.field).toBe('cursor');
  });

  it('never shows another workspace’s codes, and a foreign folder is 404', async () => {
    const other = await createOrg(t);
    expect((await list('limit=100', other.apiKey)).body.data).toEqual([]);
    const res = await list(`folder_id=${folderId}`, other.apiKey);
    expect(res.status).toBe(404);
  });

  it('lists each code as GET /v1/qr-codes/{id} shows it, field for field (link controls, tags, folder, design, utm)', async () => {
    const o = await createOrg(t, { plan: 'pro' });
    const f = (await http(t.origin, 'POST', '/v1/folders', { key: o.apiKey, body: { name: 'Shop' } })).body;
    const bodies: Record<string, unknown>[] = [
      {
        name: 'Everything',
        target: { type: 'url', destination: 'https://example.com/menu', utm: { source: 'qr', campaign: 'spring' } },
        tags: ['menu', 'spring'],
        folder_id: f.id,
        design: { colors: { foreground: '#1a237e', background: '#ffffff' }, shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' } },
        expires_at: '2099-01-01T00:00:00.000Z',
        max_scans: 500,
        expired_url: 'https://example.com/over',
        password: 'staff only 2026',
      },
      { name: 'Static wifi', type: 'static', target: { type: 'wifi', ssid: 'Cafe', password: 'secret123', encryption: 'WPA' } },
      { name: 'Page', target: { type: 'text', text: 'Hello' } },
    ];
    const created: Code[] = [];
    for (const body of bodies) {
      const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body });
      expect(res.status).toBe(201);
      created.push(res.body);
    }
    const listed = await http(t.origin, 'GET', '/v1/qr-codes?limit=10', { key: o.apiKey });
    expect(listed.body.data.map((c: Code) => c.id)).toEqual(created.map((c) => c.id).reverse());
    for (const item of listed.body.data as Code[]) {
      const one = await http(t.origin, 'GET', `/v1/qr-codes/${item.id}`, { key: o.apiKey });
      expect(item).toEqual(one.body);
    }
    const everything = listed.body.data.find((c: Code) => c.name === 'Everything');
    expect(everything).toMatchObject({ has_password: true, max_scans: 500, expires_at: '2099-01-01T00:00:00.000Z', tags: ['menu', 'spring'], folder_id: f.id });
    expect(JSON.stringify(listed.body)).not.toContain('staff only 2026');
    expect(JSON.stringify(listed.body)).not.toContain('argon2');
  });

  it('unfiles codes when their folder is deleted', async () => {
    const o = await createOrg(t);
    const f = (await http(t.origin, 'POST', '/v1/folders', { key: o.apiKey, body: { name: 'temp' } })).body;
    const c = (await http(t.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { target: { type: 'text', text: 'x' }, folder_id: f.id } })).body;
    const del = await http(t.origin, 'DELETE', `/v1/folders/${f.id}`, { key: o.apiKey });
    expect(del.body).toEqual({ id: f.id, object: 'folder', deleted: true });
    expect((await http(t.origin, 'GET', `/v1/qr-codes/${c.id}`, { key: o.apiKey })).body.folder_id).toBeNull();
    expect((await http(t.origin, 'GET', `/v1/folders/${f.id}`, { key: o.apiKey })).status).toBe(404);
  });
});

describe('/v1/folders', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApi();
  });
  afterAll(() => t.close());

  it('creates, lists newest first, renames and isolates folders', async () => {
    const o = await createOrg(t);
    const a = await http(t.origin, 'POST', '/v1/folders', { key: o.apiKey, body: { name: 'A' } });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ object: 'folder', name: 'A' });
    expect(a.body.id).toMatch(/^fld_/);
    const b = await http(t.origin, 'POST', '/v1/folders', { key: o.apiKey, body: { name: 'B' } });
    const listed = await http(t.origin, 'GET', '/v1/folders', { key: o.apiKey });
    expect(listed.body.data.map((f: { name: string }) => f.name)).toEqual(['B', 'A']);
    const renamed = await http(t.origin, 'PATCH', `/v1/folders/${a.body.id}`, { key: o.apiKey, body: { name: 'A2' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('A2');
    expect((await http(t.origin, 'PATCH', `/v1/folders/${a.body.id}`, { key: o.apiKey, body: { name: 'x'.repeat(256) } })).body.error.field).toBe('name');
    const other = await createOrg(t);
    expect((await http(t.origin, 'GET', `/v1/folders/${b.body.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await http(t.origin, 'PATCH', `/v1/folders/${b.body.id}`, { key: other.apiKey, body: { name: 'x' } })).status).toBe(404);
    expect((await http(t.origin, 'DELETE', `/v1/folders/${b.body.id}`, { key: other.apiKey })).status).toBe(404);
    const page = await http(t.origin, 'GET', '/v1/folders?limit=1', { key: o.apiKey });
    expect(page.body.has_more).toBe(true);
    const next = await http(t.origin, 'GET', `/v1/folders?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key: o.apiKey });
    expect(next.body.data[0].id).toBe(a.body.id);
    // The cursor belongs to this workspace's list: another workspace gets a 400 on it, not a page from its position.
    const foreign = await http(t.origin, 'GET', `/v1/folders?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`, { key: other.apiKey });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.field).toBe('cursor');
    expect((await http(t.origin, 'GET', '/v1/folders?limit=', { key: o.apiKey })).body.error.field).toBe('limit');
  });
});
