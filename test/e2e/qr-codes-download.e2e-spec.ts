import sharp from 'sharp';
import { createOrg, http, startApi, TestApp, TestOrg } from '../setup/app';

describe('GET /v1/qr-codes/{id}/download', () => {
  let t: TestApp;
  let org: TestOrg;
  let code: { id: string; image_url: string };

  beforeAll(async () => {
    t = await startApi();
    org = await createOrg(t);
    code = (await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { name: 'Spring Menü 2026!', target: { type: 'url', destination: 'https://example.com' } } })).body;
  });
  afterAll(() => t.close());

  const download = (query: string, key = org.apiKey) =>
    fetch(`${t.origin}/v1/qr-codes/${code.id}/download${query}`, { headers: { authorization: `Bearer ${key}` } });

  it('answers an SVG attachment by default', async () => {
    const res = await download('');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="spring-menu-2026.svg"');
    expect(await res.text()).toMatch(/^(<\?xml[^>]*>\s*)?<svg[\s>]/);
  });

  it('sizes an SVG too', async () => {
    const svg = await (await download('?format=svg&size=300')).text();
    expect(svg).toMatch(/<svg[^>]*\swidth="300"[^>]*\sheight="300"/);
    expect(await (await download('')).text()).toMatch(/<svg[^>]*\swidth="1000"/);
  });

  it('renders a PNG of the requested size', async () => {
    const res = await download('?format=png&size=600');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="spring-menu-2026.png"');
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect(meta).toMatchObject({ format: 'png', width: 600, height: 600 });
  });

  it.each([
    ['?format=gif', 'format'],
    ['?format=png&size=99', 'size'],
    ['?format=png&size=4001', 'size'],
    ['?format=png&size=abc', 'size'],
    ['?colour=red', 'colour'],
  ])('refuses %s with 400 naming %s', async (query, field) => {
    const res = await download(query);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.field).toBe(field);
  });

  it('refuses a size too small for a long payload to stay readable', async () => {
    const big = await http(t.origin, 'POST', '/v1/qr-codes', {
      key: org.apiKey,
      body: { type: 'static', target: { type: 'text', text: 'x'.repeat(1000) }, design: { error_correction: 'H' } },
    });
    expect(big.status).toBe(201);
    const res = await fetch(`${t.origin}/v1/qr-codes/${big.body.id}/download?format=png&size=100`, { headers: { authorization: `Bearer ${org.apiKey}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.field).toBe('size');
  });

  it('needs qr:read and hides other workspaces’ codes', async () => {
    const writer = await createOrg(t, { scopes: ['qr:write'] });
    expect((await download('', writer.apiKey)).status).toBe(403);
    const other = await createOrg(t);
    expect((await download('', other.apiKey)).status).toBe(404);
  });
});
