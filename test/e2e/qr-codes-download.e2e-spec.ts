import sharp from 'sharp';
import { createOrg, http, startApi, TestApp, TestOrg } from '../setup/app';
import { assertMatchesOpenApi } from '../setup/openapi-check';

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

  /** Every answer's status and media type must be the ones the OpenAPI document declares. */
  const download = async (query: string, key = org.apiKey) => {
    const path = `/v1/qr-codes/${code.id}/download${query}`;
    const res = await fetch(`${t.origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const type = res.headers.get('content-type') ?? '';
    await assertMatchesOpenApi(t.origin, 'GET', path, res.status, type.includes('json') ? await res.clone().json() : undefined, type);
    return res;
  };

  it('answers an SVG attachment by default', async () => {
    const res = await download('');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="spring-menu-2026.svg"');
    expect(await res.text()).toMatch(/^(<\?xml[^>]*>\s*)?<svg[\s>]/);
  });

  it('gives an SVG the requested size as its width and height (the same vector drawing), and refuses a bad size', async () => {
    const plain = await (await download('?format=svg')).text();
    expect(plain).toMatch(/<svg[^>]*\swidth="1000" height="1000"/);
    const small = await download('?format=svg&size=300');
    expect(small.status).toBe(200);
    const text = await small.text();
    expect(text).toMatch(/<svg[^>]*\swidth="300" height="300"/);
    expect(text.replace(/ width="300" height="300"/, '')).toBe(plain.replace(/ width="1000" height="1000"/, ''));
    for (const query of ['?size=5', '?format=svg&size=abc', '?format=svg&size=4001', '?format=png&size=99', '?format=webp&size=1.5']) {
      const res = await http(t.origin, 'GET', `/v1/qr-codes/${code.id}/download${query}`, { key: org.apiKey });
      expect([query, res.status, res.body.error?.code, res.body.error?.field]).toEqual([query, 400, 'invalid_request', 'size']);
    }
  });

  it('declares in the OpenAPI document the media types it answers', async () => {
    const doc = (await http(t.origin, 'GET', '/docs/openapi.json')).body;
    const ok = doc.paths['/v1/qr-codes/{id}/download'].get.responses['200'].content;
    expect(Object.keys(ok)).toEqual(expect.arrayContaining(['image/svg+xml', 'image/png']));
    expect(Object.keys(doc.paths['/v1/batches/{id}/download'].get.responses['200'].content)).toEqual(['application/zip']);
    // The check the suite applies to every answer refuses a media type the document does not declare.
    await expect(assertMatchesOpenApi(t.origin, 'GET', `/v1/qr-codes/${code.id}/download`, 200, undefined, 'image/gif')).rejects.toThrow(/declares image\/svg\+xml, image\/png/);
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
