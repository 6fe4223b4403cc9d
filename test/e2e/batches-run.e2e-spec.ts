import sharp from 'sharp';
import { TestReceiver, waitFor } from '../../src/modules/webhooks/testing/receiver';
import { BatchRunnerService, CHUNK_SIZE } from '../../src/modules/batches/batch-runner.service';
import { claimItems } from '../../src/modules/batches/batch-items.repository';
import { createOrg, db, eventually, http, isolatedRedisUrl, startApi, startWorker, TestApp, TestOrg, writePlans } from '../setup/app';
import { zipEntries, zipEntry } from '../setup/zip';

/** Batches as they run: capacity reservation, events, per-item errors inside a chunk, the list, the ZIP. */
describe('batches at work', () => {
  let t: TestApp;
  let worker: { close(): Promise<void> };
  let org: TestOrg;
  let rx: TestReceiver;

  beforeAll(async () => {
    rx = await new TestReceiver().start();
    t = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    worker = await startWorker();
    org = await createOrg(t, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await rx.stop();
  });

  const finished = (app: TestApp, id: string, key: string) =>
    eventually(async () => {
      const res = await http(app.origin, 'GET', `/v1/batches/${id}`, { key });
      return res.body.status !== 'processing' ? res.body : undefined;
    }, 60_000, `batch ${id}`);

  it("never stores an item's link-control password in plain text: sealed while it waits, gone once the item is done", async () => {
    const password = `pw-${Date.now()}-secret`;
    const res = await http(t.origin, 'POST', '/v1/batches', {
      key: org.apiKey,
      body: {
        items: [
          { name: 'locked', target: { type: 'url', destination: 'https://example.com/locked' }, password },
          { name: 'static', type: 'static', target: { type: 'text', text: 'x' }, password: 'abcd1234' },
          { name: 'number', target: { type: 'url', destination: 'https://example.com/n' }, password: 1234 },
        ],
      },
    });
    expect(res.status).toBe(202);
    const rows = async () => (await db(t).execute<{ idx: number; request: string }[]>('select idx, request::text as request from batch_items where batch_id = ? order by idx', [res.body.id])).map((r) => r.request);
    for (const stored of await rows()) expect(stored).not.toMatch(new RegExp(`${password}|abcd1234`));
    const done = await finished(t, res.body.id, org.apiKey);
    expect(done.items.map((i: { status: string; error: string | null }) => [i.status, i.error])).toEqual([
      ['completed', null],
      ['failed', 'password applies to dynamic codes only'],
      ['failed', 'password must be 4 to 128 characters'],
    ]);
    for (const stored of await rows()) expect(JSON.parse(stored)).not.toHaveProperty('password');
    const code = await http(t.origin, 'GET', `/v1/qr-codes/${done.items[0].qr_code_id}`, { key: org.apiKey });
    expect(code.body.has_password).toBe(true);
    const hash = (await db(t).execute<{ password_hash: string }[]>('select password_hash from qr_codes where id = ?', [code.body.id]))[0].password_hash;
    expect(hash).toMatch(/^\$argon2id\$/);
  });

  it('reserves the capacity of an accepted batch until it finishes', async () => {
    // An api on its own Redis: no worker runs this batch until the test lets one.
    const redis = isolatedRedisUrl(3);
    const limited = await startApi({ REDIS_URL: redis, PLANS_FILE: writePlans({ plus: { dynamic_qr_limit: 5, requests_per_minute: 100_000 } }) });
    try {
      const o = await createOrg(limited, { plan: 'plus' });
      const text = (s: string) => ({ target: { type: 'text', text: s } });
      expect((await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: text('before') })).status).toBe(201);
      const res = await http(limited.origin, 'POST', '/v1/batches', { key: o.apiKey, body: { items: [text('a'), text('b'), text('c')] } });
      expect(res.status).toBe(202);
      // Held as if a worker had claimed every item for an hour (so the sweepers of other workers leave it alone).
      await db(limited).execute(`update batch_items set claim = 'held', claimed_until = now() + interval '1 hour' where batch_id = ?`, [res.body.id]);

      expect((await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: text('fits') })).status).toBe(201);
      const stolen = await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: text('would take the batch its room') });
      expect(stolen.status).toBe(403);
      expect(stolen.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 5, current_count: 5, requested: 1, plan_id: 'plus' });
      const second = await http(limited.origin, 'POST', '/v1/batches', { key: o.apiKey, body: { items: [text('d')] } });
      expect(second.status).toBe(403);
      expect(second.body.error.code).toBe('plan_limit_reached');
      const statics = await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: { ...text('static'), type: 'static' } });
      expect(statics.status).toBe(201);

      await db(limited).execute(`update batch_items set claim = null, claimed_until = null where batch_id = ?`, [res.body.id]);
      const own = await startWorker({ REDIS_URL: redis });
      try {
        const done = await finished(limited, res.body.id, o.apiKey);
        expect(done).toMatchObject({ status: 'completed', completed_count: 3, error_count: 0 });
      } finally {
        await own.close();
      }
      // Finished: the reservation is gone, the codes themselves now count.
      const [{ n }] = await db(limited).execute<{ n: string }[]>('select count(*) as n from qr_capacity_reservations where holder = ?', [res.body.id]);
      expect(Number(n)).toBe(0);
      const full = await http(limited.origin, 'POST', '/v1/qr-codes', { key: o.apiKey, body: text('full') });
      expect(full.body.error).toMatchObject({ code: 'plan_limit_reached', current_count: 5 });
    } finally {
      await limited.close();
    }
  });

  it('fails one bad item alone within a chunk, lists full batches and delivers qr.created per code and batch.completed', async () => {
    const hook = await http(t.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: rx.url('/batch-events'), events: ['qr.created', 'batch.completed', 'batch.failed'] } });
    expect(hook.status).toBe(201);
    const items = Array.from({ length: 120 }, (_, i) => ({ name: `Item ${i}`, target: { type: 'url', destination: `https://example.com/${i}` } }));
    items[7] = { name: 'Bad URL', target: { type: 'url', destination: 'javascript:alert(1)' } };
    items[64] = { name: 'Bad type', target: { type: 'hologram', destination: 'x' } } as never;
    items[65] = { name: 'Unknown folder', target: { type: 'url', destination: 'https://example.com/f' }, folder_id: 'fld_0000000000000000000000' } as never;
    const res = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { design: { shapes: { body: 'rounded' } }, items } });
    expect(res.status).toBe(202);
    const done = await finished(t, res.body.id, org.apiKey);
    expect(done).toMatchObject({ status: 'completed', total_count: 120, completed_count: 117, error_count: 3 });
    const failed = done.items.flatMap((i: { status: string }, n: number) => (i.status === 'failed' ? [n] : []));
    expect(failed).toEqual([7, 64, 65]);
    expect(done.items[7].error).toMatch(/target\.destination/);
    expect(done.items[64].error).toMatch(/target\.type/);
    expect(done.items[65].error).toMatch(/folder/);
    const ids = done.items.filter((i: { status: string }) => i.status === 'completed').map((i: { qr_code_id: string }) => i.qr_code_id);
    expect(new Set(ids).size).toBe(117);

    const list = await http(t.origin, 'GET', '/v1/batches?limit=5', { key: org.apiKey });
    const listed = list.body.data.find((b: { id: string }) => b.id === res.body.id);
    expect(listed).toEqual(done);

    const received = await waitFor(() => {
      const bodies = rx.forPath('/batch-events').map((r) => JSON.parse(r.body));
      const created = bodies.filter((e) => e.type === 'qr.created' && ids.includes(e.data.id));
      const completed = bodies.filter((e) => e.type === 'batch.completed' && e.data.id === res.body.id);
      return created.length >= 117 && completed.length >= 1 ? { created, completed } : undefined;
    }, 'the batch events', 60_000);
    expect(new Set(received.created.map((e) => e.data.id)).size).toBe(117);
    expect(received.completed[0].data).toEqual({ id: res.body.id, object: 'batch', status: 'completed', total_count: 120, completed_count: 117, error_count: 3, created_at: res.body.created_at });
    const archived = await http(t.origin, 'GET', '/v1/events?type=batch.completed&limit=100', { key: org.apiKey });
    expect(archived.body.data.map((e: { data: { id: string } }) => e.data.id)).toContain(res.body.id);
    const createdArchive = await http(t.origin, 'GET', '/v1/events?type=qr.created&limit=100', { key: org.apiKey });
    expect(createdArchive.body.data.length).toBe(100);
  }, 120_000);

  it('names an item sent without a name by its code once created, and shows name and type as strings throughout', async () => {
    const items = [
      { target: { type: 'url', destination: 'https://example.com/unnamed' } },
      { name: 'Named', target: { type: 'text', text: 'hello' } },
      { target: { type: 'url', destination: 'javascript:alert(1)' } },
    ];
    const res = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { items } });
    expect(res.status).toBe(202);
    expect(res.body.items.map((i: { name: unknown; type: unknown }) => [i.name, i.type])).toEqual([
      ['', 'url'],
      ['Named', 'text'],
      ['', 'url'],
    ]);
    const done = await finished(t, res.body.id, org.apiKey);
    const code = await http(t.origin, 'GET', `/v1/qr-codes/${done.items[0].qr_code_id as string}`, { key: org.apiKey });
    expect(code.body.name).toBe(`Campaign ${code.body.short_code as string}`);
    expect(done.items.map((i: { name: unknown; status: string }) => [i.name, i.status])).toEqual([
      [code.body.name, 'completed'],
      ['Named', 'completed'],
      ['', 'failed'],
    ]);
  });

  it('emits batch.failed on a global failure and releases the reservation', async () => {
    const redis = isolatedRedisUrl(3);
    const api = await startApi({ REDIS_URL: redis, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    try {
      const res = await http(api.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { items: [{ target: { type: 'text', text: 'never' } }] } });
      await db(api).execute(`update batch_items set claim = 'held', claimed_until = now() + interval '1 hour' where batch_id = ?`, [res.body.id]);
      await api.app.get(BatchRunnerService).fail(res.body.id, 'the workspace was suspended');
      const got = await http(api.origin, 'GET', `/v1/batches/${res.body.id}`, { key: org.apiKey });
      expect(got.body).toMatchObject({ status: 'failed', completed_count: 0 });
      const event = await waitFor(
        () => rx.forPath('/batch-events').map((r) => JSON.parse(r.body)).find((e) => e.type === 'batch.failed' && e.data.id === res.body.id),
        'batch.failed',
        30_000,
      );
      expect(event.data).toMatchObject({ id: res.body.id, object: 'batch', status: 'failed' });
      expect(event.data.items).toBeUndefined();
      const [{ n }] = await db(api).execute<{ n: string }[]>('select count(*) as n from qr_capacity_reservations where holder = ?', [res.body.id]);
      expect(Number(n)).toBe(0);
    } finally {
      await api.close();
    }
  });

  it('streams a ZIP: PNGs stored, names safe and unique, manifest with every item', async () => {
    const items = [
      { name: '../../etc/passwd', target: { type: 'url', destination: 'https://example.com/a' } },
      { name: 'broken', target: { type: 'sms' } },
      { name: '../../etc/passwd', target: { type: 'url', destination: 'https://example.com/b' } },
      { name: 'Ünïcode, "quoted" =SUM(1)', target: { type: 'text', text: 'hi' }, type: 'static' },
    ];
    const res = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { items } });
    const done = await finished(t, res.body.id, org.apiKey);
    const get = async (query: string) => Buffer.from(await (await fetch(`${t.origin}/v1/batches/${res.body.id}/download?${query}`, { headers: { authorization: `Bearer ${org.apiKey}` } })).arrayBuffer());
    const zip = await get('format=png&size=200');
    const entries = zipEntries(zip);
    const pngs = entries.filter((e) => e.name.endsWith('.png'));
    expect(pngs).toHaveLength(3);
    expect(pngs.every((e) => e.method === 0)).toBe(true);
    expect(new Set(pngs.map((e) => e.name)).size).toBe(3);
    for (const e of pngs) expect(e.name).toMatch(/^[a-z0-9-]+-s?qr_[0-9A-Za-z]+\.png$/);
    expect(zipEntry(zip, pngs[0].name)!.subarray(1, 4).toString()).toBe('PNG');
    const manifest = zipEntry(zip, 'manifest.csv')!.toString('utf8').trim().split('\r\n');
    expect(manifest[0]).toBe('id,name,short_url,status,error');
    expect(manifest).toHaveLength(5);
    const row = manifest.find((l) => l.startsWith(done.items[0].qr_code_id))!;
    expect(row).toContain(`${t.config.scanBaseUrl}/`);
    expect(row).toMatch(/,completed,$/);
    expect(zipEntry(zip, `etcpasswd-${done.items[0].qr_code_id}.png`)).toBeDefined();
    expect(manifest.some((l) => l.includes(`"'=SUM(1)`) || l.includes('""quoted""'))).toBe(true);
    expect(manifest.some((l) => l.startsWith(',broken,,failed,'))).toBe(true);
    // One row per item, in the batch's order (the failed one where it was, not first).
    expect(manifest.slice(1).map((l) => l.slice(0, l.indexOf(',')))).toEqual(done.items.map((i: { qr_code_id: string | null }) => i.qr_code_id ?? ''));

    // 4,000 px PNGs are drawn by the renderer children, several at once; they arrive whole, in the batch's order.
    const big = await get('format=png&size=4000');
    const bigPngs = zipEntries(big).filter((e) => e.name.endsWith('.png'));
    expect(bigPngs).toHaveLength(3);
    expect(bigPngs.map((e) => e.name)).toEqual(pngs.map((e) => e.name));
    expect(bigPngs.every((e) => e.method === 0)).toBe(true);
    expect(await sharp(zipEntry(big, bigPngs[0].name)!).metadata()).toMatchObject({ format: 'png', width: 4000, height: 4000 });

    const svgZip = await get('format=svg');
    const svg = zipEntries(svgZip).filter((e) => e.name.endsWith('.svg'));
    expect(svg.every((e) => e.method === 8)).toBe(true);
    // `size` is for PNGs: SVGs are the same whatever it holds (the spec: "ignored for SVG").
    const sized = await get('format=svg&size=150');
    expect(zipEntry(sized, svg[0].name)!.toString('utf8')).toBe(zipEntry(svgZip, svg[0].name)!.toString('utf8'));
    expect((await fetch(`${t.origin}/v1/batches/${res.body.id}/download?format=svg&size=99999`, { headers: { authorization: `Bearer ${org.apiKey}` } })).status).toBe(200);
  });

  it('shows a 1,000-item batch progressing chunk by chunk in GET /v1/batches/{id} while it runs', async () => {
    const big = await createOrg(t, { plan: 'agency' });
    const items = Array.from({ length: 1000 }, (_, i) => ({ name: `progress ${i}`, target: { type: 'url', destination: `https://example.com/progress/${i}` } }));
    const res = await http(t.origin, 'POST', '/v1/batches', { key: big.apiKey, body: { items } });
    expect(res.status).toBe(202);
    const seen: number[] = [];
    const done = await eventually(async () => {
      const b = (await http(t.origin, 'GET', `/v1/batches/${res.body.id}`, { key: big.apiKey })).body;
      seen.push(b.completed_count);
      if (b.status === 'processing') expect(b.items.filter((i: { status: string }) => i.status === 'completed')).toHaveLength(b.completed_count);
      return b.status !== 'processing' ? b : undefined;
    }, 240_000, `batch ${res.body.id}`);
    expect(done).toMatchObject({ status: 'completed', completed_count: 1000, error_count: 0 });
    // Recorded per chunk: a user polling the batch sees it part-way, in steps of at most one chunk per worker.
    const between = seen.filter((n) => n > 0 && n < 1000);
    expect(between.length).toBeGreaterThan(0);
    expect(between.every((n) => n % CHUNK_SIZE === 0)).toBe(true);
  }, 300_000);

  it('claims one chunk at a time even when the table statistics make a new batch look small', async () => {
    // An api on its own Redis: no worker runs these batches; the test claims by hand.
    const api = await startApi({ REDIS_URL: isolatedRedisUrl(3) });
    const o = await createOrg(api, { plan: 'agency' });
    const ids: string[] = [];
    const post = async (tag: string) => {
      const items = Array.from({ length: 1000 }, (_, i) => ({ target: { type: 'text', text: `${tag} ${i}` }, type: 'static' }));
      const res = await http(api.origin, 'POST', '/v1/batches', { key: o.apiKey, body: { items } });
      expect(res.status).toBe(202);
      ids.push(res.body.id);
      // Held, so that the stalled-batch sweepers of other workers leave them alone.
      await db(api).execute(`update batch_items set claim = 'held', claimed_until = now() + interval '1 hour' where batch_id = ?`, [res.body.id]);
      return res.body.id as string;
    };
    try {
      await post('known');
      // Statistics taken before the batch under test exists: the planner then expects about one row of it, the case in
      // which a claim written as `idx in (select … limit n for update skip locked)` ran its subquery once per row.
      await db(api).execute('analyze batch_items');
      const id = await post('new');
      // One transaction, ended by failing the batch: no other worker ever sees its items free.
      const { first, second, claimed } = await db(api).transactional(async (tx) => {
        await tx.execute(`update batch_items set claim = null, claimed_until = null where batch_id = ?`, [id]);
        const one = await claimItems(tx, id, 'probe-1', CHUNK_SIZE, 60_000);
        const two = await claimItems(tx, id, 'probe-2', CHUNK_SIZE, 60_000);
        const [row] = await tx.execute<{ n: string }[]>(`select count(*) as n from batch_items where batch_id = ? and claim like 'probe-%'`, [id]);
        await tx.execute(`update batches set status = 'failed', failure_reason = 'test' where id = ?`, [id]);
        return { first: one.map((i) => i.idx), second: two.map((i) => i.idx), claimed: Number(row.n) };
      });
      expect(first).toEqual(Array.from({ length: CHUNK_SIZE }, (_, i) => i));
      expect(second).toEqual(Array.from({ length: CHUNK_SIZE }, (_, i) => CHUNK_SIZE + i));
      expect(claimed).toBe(2 * CHUNK_SIZE);
    } finally {
      await db(api).execute(`update batches set status = 'failed', failure_reason = 'test' where id in (?, ?)`, [ids[0] ?? '', ids[1] ?? '']);
      await api.close();
    }
  }, 120_000);
});
