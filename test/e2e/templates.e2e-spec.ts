import sharp from 'sharp';
import { addKey, createOrg, eventually, http, startApi, startWorker, TestApp, TestOrg } from '../setup/app';

describe('/v1/templates', () => {
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

  const brand = { colors: { foreground: '#1a237e', background: '#ffffff' }, shapes: { body: 'dots', eye_frame: 'rounded' } };

  it('creates, reads, lists, updates and deletes a template', async () => {
    const created = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'Brand', design: brand } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'template', name: 'Brand', design: { colors: brand.colors, shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'square' }, error_correction: 'M' } });
    expect(created.body.id).toMatch(/^tpl_[0-9A-Za-z]{16,}$/);
    const got = await http(t.origin, 'GET', `/v1/templates/${created.body.id}`, { key: org.apiKey });
    expect(got.body).toEqual(created.body);

    const patched = await http(t.origin, 'PATCH', `/v1/templates/${created.body.id}`, { key: org.apiKey, body: { name: 'Brand 2', design: { shapes: { body: 'rounded' } } } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Brand 2', design: { colors: brand.colors, shapes: { body: 'rounded', eye_frame: 'rounded' } } });

    const second = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'Plain', design: {} } });
    const page1 = await http(t.origin, 'GET', '/v1/templates?limit=1', { key: org.apiKey });
    expect(page1.body).toMatchObject({ object: 'list', has_more: true });
    expect(page1.body.data.map((x: { id: string }) => x.id)).toEqual([second.body.id]);
    const page2 = await http(t.origin, 'GET', `/v1/templates?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { key: org.apiKey });
    expect(page2.body.data.map((x: { id: string }) => x.id)).toEqual([created.body.id]);

    const deleted = await http(t.origin, 'DELETE', `/v1/templates/${created.body.id}`, { key: org.apiKey });
    expect(deleted.body).toEqual({ id: created.body.id, object: 'template', deleted: true });
    expect((await http(t.origin, 'GET', `/v1/templates/${created.body.id}`, { key: org.apiKey })).status).toBe(404);
  });

  it('validates the design as a code design and refuses unknown fields', async () => {
    for (const [body, field] of [
      [{ name: 'x', design: { shapes: { body: 'stars' } } }, 'design.shapes.body'],
      [{ name: 'x', design: { colors: { foreground: '#eeeeee' } } }, 'design.colors'],
      [{ name: 'x' }, 'design'],
      [{ design: {} }, 'name'],
      [{ name: 'x', design: {}, colour: 1 }, 'colour'],
      // Logos as a code's creation checks them: no private address, only real images.
      [{ name: 'x', design: { logo: { url: 'http://169.254.169.254/latest/' } } }, 'design.logo.url'],
      [{ name: 'x', design: { logo: { url: `data:image/png;base64,${Buffer.from('<html>').toString('base64')}` } } }, 'design.logo.url'],
    ] as const) {
      const res = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body });
      expect([JSON.stringify(body).slice(0, 80), res.status, res.body.error?.field]).toEqual([JSON.stringify(body).slice(0, 80), 400, field]);
    }
    const ok = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'Plain', design: {} } });
    const patched = await http(t.origin, 'PATCH', `/v1/templates/${ok.body.id}`, { key: org.apiKey, body: { design: { logo: { url: 'http://127.0.0.1/x.png' } } } });
    expect([patched.status, patched.body.error?.field]).toEqual([400, 'design.logo.url']);
    // A batch whose design every item would refuse is refused before it is accepted.
    const batch = await http(t.origin, 'POST', '/v1/batches', {
      key: org.apiKey,
      body: { design: { logo: { url: 'http://127.0.0.1/x.png' } }, items: [{ target: { type: 'text', text: 'a' } }] },
    });
    expect([batch.status, batch.body.error?.field]).toEqual([400, 'design.logo.url']);
  });

  it('keeps templates to their workspace and environment, and checks scopes', async () => {
    const mine = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'Mine', design: brand } });
    const other = await createOrg(t);
    const testKey = await addKey(t, org.organizationId, { environment: 'test' });
    for (const key of [other.apiKey, testKey.apiKey]) {
      expect((await http(t.origin, 'GET', `/v1/templates/${mine.body.id}`, { key })).status).toBe(404);
      expect((await http(t.origin, 'PATCH', `/v1/templates/${mine.body.id}`, { key, body: { name: 'x' } })).status).toBe(404);
      expect((await http(t.origin, 'DELETE', `/v1/templates/${mine.body.id}`, { key })).status).toBe(404);
      const code = await http(t.origin, 'POST', '/v1/qr-codes', { key, body: { target: { type: 'text', text: 'x' }, type: 'static', template_id: mine.body.id } });
      expect(code.status).toBe(404);
      expect(code.body.error).toMatchObject({ code: 'not_found', field: 'template_id' });
      const list = await http(t.origin, 'GET', '/v1/templates', { key });
      expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(mine.body.id);
    }
    const reader = await addKey(t, org.organizationId, { scopes: ['qr:read'] });
    const refused = await http(t.origin, 'POST', '/v1/templates', { key: reader.apiKey, body: { name: 'x', design: {} } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_scope');
    expect((await http(t.origin, 'GET', `/v1/templates/${mine.body.id}`, { key: reader.apiKey })).status).toBe(200);
  });

  it('copies the template into new codes, a design beside it overriding field by field; later edits change no code', async () => {
    const tpl = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'Copy me', design: brand } });
    const code = await http(t.origin, 'POST', '/v1/qr-codes', {
      key: org.apiKey,
      body: { target: { type: 'url', destination: 'https://example.com' }, template_id: tpl.body.id, design: { shapes: { eye_ball: 'circle' } } },
    });
    expect(code.status).toBe(201);
    expect(code.body.design).toMatchObject({ colors: brand.colors, shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' } });
    await http(t.origin, 'PATCH', `/v1/templates/${tpl.body.id}`, { key: org.apiKey, body: { design: { shapes: { body: 'square' } } } });
    await http(t.origin, 'DELETE', `/v1/templates/${tpl.body.id}`, { key: org.apiKey });
    const again = await http(t.origin, 'GET', `/v1/qr-codes/${code.body.id}`, { key: org.apiKey });
    expect(again.body.design).toEqual(code.body.design);
    expect(again.body.image_url).toBe(code.body.image_url);
    const gone = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'text', text: 'x' }, template_id: tpl.body.id } });
    expect(gone.status).toBe(404);
    expect(gone.body.error.field).toBe('template_id');
  });

  it('keeps the error correction a template names when the code adds a logo; without one named anywhere, a logo picks H', async () => {
    const png = await sharp({ create: { width: 60, height: 40, channels: 4, background: '#c62828' } }).png().toBuffer();
    const logo = { url: `data:image/png;base64,${png.toString('base64')}` };
    const target = { type: 'url', destination: 'https://example.com/ec' };
    const template = async (design: Record<string, unknown>) => (await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'ec', design } })).body.id as string;
    const levelOf = async (templateId: string) => {
      const res = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { template_id: templateId, target, design: { logo } } });
      expect(res.status).toBe(201);
      return res.body.design.error_correction as string;
    };
    const named = await template({ error_correction: 'Q' });
    const namedM = await template({ error_correction: 'M', colors: { foreground: '#1a237e' } });
    const unnamed = await template({ colors: { foreground: '#1a237e' } });
    expect([await levelOf(named), await levelOf(namedM), await levelOf(unnamed)]).toEqual(['Q', 'M', 'H']);
    // Named later through PATCH, even as the level it already had (nothing an answer shows changes: updated_at stays).
    const before = (await http(t.origin, 'GET', `/v1/templates/${unnamed}`, { key: org.apiKey })).body;
    const patched = await http(t.origin, 'PATCH', `/v1/templates/${unnamed}`, { key: org.apiKey, body: { design: { error_correction: 'M' } } });
    expect([patched.status, patched.body.updated_at, patched.body.design.error_correction]).toEqual([200, before.updated_at, 'M']);
    expect(patched.body.design).not.toHaveProperty('error_correction_named');
    expect(await levelOf(unnamed)).toBe('M');
  });

  it('applies a template to every item of a batch', async () => {
    const tpl = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'Batch', design: brand } });
    const res = await http(t.origin, 'POST', '/v1/batches', {
      key: org.apiKey,
      body: { template_id: tpl.body.id, design: { colors: { foreground: '#004d40' } }, items: [{ target: { type: 'text', text: 'a' } }, { target: { type: 'text', text: 'b' } }] },
    });
    expect(res.status).toBe(202);
    // A change after the batch was accepted changes none of its codes.
    await http(t.origin, 'PATCH', `/v1/templates/${tpl.body.id}`, { key: org.apiKey, body: { design: { shapes: { body: 'square' } } } });
    const done = await eventually(async () => {
      const b = await http(t.origin, 'GET', `/v1/batches/${res.body.id}`, { key: org.apiKey });
      return b.body.status === 'completed' ? b.body : undefined;
    }, 30_000, 'batch');
    for (const item of done.items) {
      const code = await http(t.origin, 'GET', `/v1/qr-codes/${item.qr_code_id}`, { key: org.apiKey });
      expect(code.body.design).toMatchObject({ colors: { foreground: '#004d40', background: '#ffffff' }, shapes: { body: 'dots', eye_frame: 'rounded' } });
    }
    const unknown = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: { template_id: 'tpl_0000000000000000000000', items: [{ target: { type: 'text', text: 'a' } }] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.field).toBe('template_id');
  });

  it('holds at most 100 templates per workspace', async () => {
    const full = await createOrg(t, { plan: 'plus' });
    for (let i = 0; i < 100; i++) {
      const res = await http(t.origin, 'POST', '/v1/templates', { key: full.apiKey, body: { name: `T${i}`, design: {} } });
      expect(res.status).toBe(201);
    }
    const over = await http(t.origin, 'POST', '/v1/templates', { key: full.apiKey, body: { name: 'one too many', design: {} } });
    expect(over.status).toBe(403);
    expect(over.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 100, current_count: 100, requested: 1 });
  }, 60_000);
});
