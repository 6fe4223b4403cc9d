import { createOrg, db, eventually, http, startApi, startWorker, TestApp, TestOrg, writePlans } from '../setup/app';

describe('/v1/batches', () => {
  let t: TestApp;
  let worker: { close(): Promise<void> };
  let org: TestOrg;

  beforeAll(async () => {
    t = await startApi();
    worker = await startWorker();
    org = await createOrg(t, { plan: 'pro' });
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
  });

  const finished = (id: string, key = org.apiKey) =>
    eventually(async () => {
      const res = await http(t.origin, 'GET', `/v1/batches/${id}`, { key });
      return res.body.status !== 'processing' ? res.body : undefined;
    }, 30_000, `batch ${id}`);

  it('accepts a batch with 202, creates every valid item and reports failures per item', async () => {
    const res = await http(t.origin, 'POST', '/v1/batches', {
      key: org.apiKey,
      body: {
        design: { shapes: { body: 'dots' } },
        items: [
          { name: 'Table 1', target: { type: 'url', destination: 'https://example.com/t/1' }, tags: ['tables'] },
          { name: 'Wifi', type: 'static', target: { ssid: 'Guest', encryption: 'nopass' } },
          { name: 'Broken', target: { type: 'url', destination: 'ftp://nope' } },
          { name: 'Text', target: { text: 'hello' }, design: { shapes: { body: 'rounded' } } },
        ],
      },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ object: 'batch', status: 'processing', total_count: 4 });
    expect(res.body.id).toMatch(/^batch_/);
    expect(res.body.items).toHaveLength(4);
    expect(res.body.items.every((i: { status: string }) => i.status === 'pending')).toBe(true);

    const done = await finished(res.body.id);
    expect(done).toMatchObject({ status: 'completed', total_count: 4, completed_count: 3, error_count: 1 });
    expect(done.items.map((i: { status: string }) => i.status)).toEqual(['completed', 'completed', 'failed', 'completed']);
    expect(done.items[2].error).toMatch(/target\.destination/);
    expect(done.items[2].qr_code_id).toBeNull();
    expect(done.items.map((i: { type: string }) => i.type)).toEqual(['url', 'wifi', 'url', 'text']);
    const table = await http(t.origin, 'GET', `/v1/qr-codes/${done.items[0].qr_code_id}`, { key: org.apiKey });
    expect(table.body).toMatchObject({ name: 'Table 1', tags: ['tables'], kind: 'dynamic' });
    expect(table.body.design.shapes.body).toBe('dots');
    const text = await http(t.origin, 'GET', `/v1/qr-codes/${done.items[3].qr_code_id}`, { key: org.apiKey });
    expect(text.body.design.shapes.body).toBe('dots');
    expect(done.items[1].qr_code_id).toMatch(/^sqr_/);

    const list = await http(t.origin, 'GET', '/v1/batches', { key: org.apiKey });
    expect(list.body.data[0]).toMatchObject({ id: res.body.id, status: 'completed' });
  });

  it('streams a ZIP with the images and a manifest', async () => {
    const res = await http(t.origin, 'POST', '/v1/batches', {
      key: org.apiKey,
      body: { items: [{ name: 'A, "quoted"', target: { type: 'url', destination: 'https://a.example.com' } }, { name: 'Bad', target: { type: 'sms' } }] },
    });
    await finished(res.body.id);
    const zip = await fetch(`${t.origin}/v1/batches/${res.body.id}/download?format=png&size=300`, { headers: { authorization: `Bearer ${org.apiKey}` } });
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const bytes = Buffer.from(await zip.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('hex')).toBe('504b0304');
    const names = zipEntryNames(bytes);
    expect(names).toContain('manifest.csv');
    expect(names.filter((n) => n.endsWith('.png'))).toHaveLength(1);
    expect(names.find((n) => n.endsWith('.png'))).toMatch(/^a-quoted-qr_[0-9A-Za-z]+\.png$/);
  });

  it('answers 422 batch_processing while the batch is processing', async () => {
    const em = db(t);
    const res = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { items: [{ target: { type: 'text', text: 'x' } }] } });
    await finished(res.body.id);
    await em.execute(`update batches set status = 'processing' where id = ?`, [res.body.id]);
    const dl = await http(t.origin, 'GET', `/v1/batches/${res.body.id}/download`, { key: org.apiKey });
    expect(dl.status).toBe(422);
    expect(dl.body.error.code).toBe('batch_processing');
    await em.execute(`update batches set status = 'completed' where id = ?`, [res.body.id]);
  });

  it('resumes a batch without creating an item twice', async () => {
    const res = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { items: [{ target: { type: 'text', text: 'once' } }, { target: { type: 'text', text: 'twice?' } }] } });
    const done = await finished(res.body.id);
    const em = db(t);
    // Simulate a worker killed after creating item 0's code but before recording it.
    await em.execute(`update batch_items set status = 'pending' where batch_id = ? and idx = 0`, [res.body.id]);
    await em.execute(`update batches set status = 'processing', completed_count = 1 where id = ?`, [res.body.id]);
    const { BatchesService } = await import('../../src/modules/batches/batches.service');
    await t.app.get(BatchesService).process(res.body.id);
    const again = await http(t.origin, 'GET', `/v1/batches/${res.body.id}`, { key: org.apiKey });
    expect(again.body).toMatchObject({ status: 'completed', completed_count: 2 });
    expect(again.body.items[0].qr_code_id).toBe(done.items[0].qr_code_id);
    const [{ n }] = await em.execute<{ n: string }[]>(`select count(*) as n from qr_codes where organization_id = ? and target->>'text' = 'once'`, [org.organizationId]);
    expect(Number(n)).toBe(1);
  });

  it('checks capacity for dynamic items before accepting', async () => {
    const limited = await startApi({ PLANS_FILE: writePlans({ plus: { dynamic_qr_limit: 2, requests_per_minute: 1000 } }) });
    try {
      const o = await createOrg(limited, { plan: 'plus' });
      const items = [1, 2, 3].map((i) => ({ target: { type: 'text', text: `t${i}` } }));
      const res = await http(limited.origin, 'POST', '/v1/batches', { key: o.apiKey, body: { items } });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 2, current_count: 0, requested: 3, plan_id: 'plus' });
      const statics = await http(limited.origin, 'POST', '/v1/batches', { key: o.apiKey, body: { items: items.map((i) => ({ ...i, type: 'static' })) } });
      expect(statics.status).toBe(202);
    } finally {
      await limited.close();
    }
  });

  it('is not on the free plan, and validates the body', async () => {
    const free = await createOrg(t, { plan: 'free' });
    const refused = await http(t.origin, 'POST', '/v1/batches', { key: free.apiKey, body: { items: [{ type: 'static', target: { type: 'text', text: 'x' } }] } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('plan_restricted');
    // Every batch route, reads too (as webhooks on the free plan).
    for (const path of ['/v1/batches', '/v1/batches/batch_00000000000000000000', '/v1/batches/batch_00000000000000000000/download']) {
      const read = await http(t.origin, 'GET', path, { key: free.apiKey });
      expect([path, read.status, read.body.error?.code]).toEqual([path, 403, 'plan_restricted']);
    }
    for (const [body, field] of [
      [{ items: [] }, 'items'],
      [{ items: Array.from({ length: 1001 }, () => ({ target: { type: 'text', text: 'x' } })) }, 'items'],
      [{ items: 'x' }, 'items'],
      [{ items: [{ target: { type: 'text', text: 'x' } }], design: { shapes: { body: 'stars' } } }, 'design.shapes.body'],
      [{ items: [{ target: { type: 'text', text: 'x' } }], colour: 1 }, 'colour'],
    ] as const) {
      const res = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body });
      expect(res.status).toBe(400);
      expect(res.body.error.field).toBe(field);
    }
    expect((await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { items: 'x' } })).body.error.message).toBe('items must be an array');
    const other = await createOrg(t);
    const mine = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { items: [{ target: { type: 'text', text: 'x' } }] } });
    expect((await http(t.origin, 'GET', `/v1/batches/${mine.body.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await http(t.origin, 'GET', `/v1/batches/${mine.body.id}/download`, { key: other.apiKey })).status).toBe(404);
  });
});

/** Names of the entries in a ZIP's central directory. */
function zipEntryNames(zip: Buffer): string[] {
  const names: string[] = [];
  for (let i = 0; i < zip.length - 4; i++) {
    if (zip.readUInt32LE(i) === 0x02014b50) {
      const nameLength = zip.readUInt16LE(i + 28);
      names.push(zip.subarray(i + 46, i + 46 + nameLength).toString('utf8'));
    }
  }
  return names;
}
