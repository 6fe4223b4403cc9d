import { inflateRawSync } from 'node:zlib';
import sharp from 'sharp';
import { closeDecoders, decodeBoth } from '../../src/modules/rendering/testing/qr-decoders';
import { pdfDrawing } from '../../src/modules/rendering/testing/pdf-inspect';
import { createOrg, eventually, http, startApi, startWorker, TestApp, TestOrg } from '../setup/app';

/** Print-grade designs over HTTP: frames, WebP and PDF downloads (single and batch ZIP), data: URL logos and the
 * preview endpoint. */

const FRAME = { style: 'banner_bottom', text: 'Scan for the menu', color: '#1a237e' };
const get = (t: TestApp, path: string, key: string) => fetch(`${t.origin}${path}`, { headers: { authorization: `Bearer ${key}` } });
const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

async function logoDataUrl(): Promise<string> {
  const png = await sharp({ create: { width: 120, height: 80, channels: 4, background: '#c62828' } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

async function expectDecodes(image: Buffer, payload: string): Promise<void> {
  expect(await decodeBoth(image)).toEqual({ zxing: payload, qr: payload });
}

describe('print-grade designs', () => {
  let t: TestApp;
  let worker: { close(): Promise<void> };
  let org: TestOrg;

  beforeAll(async () => {
    t = await startApi();
    worker = await startWorker();
    org = await createOrg(t, { plan: 'pro' });
  });
  afterAll(async () => {
    await closeDecoders();
    await worker.close();
    await t.close();
  });

  const create = (body: Record<string, unknown>, key = org.apiKey) => http(t.origin, 'POST', '/v1/qr-codes', { key, body });
  const countCodes = async () => (await http(t.origin, 'GET', '/v1/qr-codes?limit=100', { key: org.apiKey })).body.data.length as number;

  describe('design.frame', () => {
    it('stores a frame, shows it resolved, and draws it in every format', async () => {
      const res = await create({ name: 'Menu poster', target: { type: 'url', destination: 'https://example.com/menu' }, design: { frame: FRAME } });
      expect(res.status).toBe(201);
      expect(res.body.design.frame).toEqual({ style: 'banner_bottom', text: 'Scan for the menu', color: '#1a237e', text_color: '#ffffff' });
      const plain = await create({ target: { type: 'url', destination: 'https://example.com/' } });
      expect(plain.body.design.frame).toEqual({ style: 'none', text: null, color: '#000000', text_color: '#ffffff' });

      const svg = await (await get(t, `/v1/qr-codes/${res.body.id}/download?format=svg&size=500`, org.apiKey)).text();
      // An SVG's size is its longest side (the framed image is taller than wide).
      expect(svg).toMatch(/<svg[^>]*viewBox="0 0 \d+ [\d.]+" width="\d+" height="500"/);
      expect(svg).not.toContain('<text');

      for (const format of ['png', 'webp']) {
        const dl = await get(t, `/v1/qr-codes/${res.body.id}/download?format=${format}&size=800`, org.apiKey);
        expect(dl.status).toBe(200);
        expect(dl.headers.get('content-type')).toBe(`image/${format}`);
        expect(dl.headers.get('content-disposition')).toBe(`attachment; filename="menu-poster.${format}"`);
        const image = await bytesOf(dl);
        const meta = await sharp(image).metadata();
        expect(meta).toMatchObject({ format, height: 800 });
        expect(meta.width).toBeLessThan(800);
        await expectDecodes(image, res.body.short_url);
      }
    });

    it('is merged field by field on PATCH and removed with null', async () => {
      const code = (await create({ target: { type: 'url', destination: 'https://example.com/' }, design: { frame: FRAME } })).body;
      const patched = await http(t.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body: { design: { frame: { text: 'Order here' } } } });
      expect(patched.status).toBe(200);
      expect(patched.body.design.frame).toMatchObject({ style: 'banner_bottom', text: 'Order here', color: '#1a237e' });
      const removed = await http(t.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body: { design: { frame: null } } });
      expect(removed.body.design.frame.style).toBe('none');
    });

    it.each([
      [{ style: 'box', text: 'x'.repeat(25) }, 'design.frame.text'],
      [{ style: 'box', text: 'Scan\u0000me' }, 'design.frame.text'],
      [{ style: 'box', text: 'Scan\tme' }, 'design.frame.text'],
      [{ style: 'speech_bubble', text: 'Scan' }, 'design.frame.style'],
      [{ style: 'box', color: '#f0f0f0' }, 'design.frame.color'],
      [{ style: 'box', text_color: '#000000' }, 'design.frame.text_color'],
      [{ style: 'box', shadow: true }, 'design.frame.shadow'],
    ])('refuses frame %j with 400 naming %s, creating nothing', async (frame, field) => {
      const before = await countCodes();
      const res = await create({ target: { type: 'url', destination: 'https://example.com/' }, design: { frame } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field });
      expect(await countCodes()).toBe(before);
    });

    it('applies to templates: a template with a frame frames the codes made from it', async () => {
      const tpl = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'Posters', design: { frame: { style: 'rounded_box', text: 'Scan me' } } } });
      expect(tpl.status).toBe(201);
      expect(tpl.body.design.frame).toMatchObject({ style: 'rounded_box', text: 'Scan me' });
      const code = await create({ template_id: tpl.body.id, target: { type: 'url', destination: 'https://example.com/' } });
      expect(code.body.design.frame).toMatchObject({ style: 'rounded_box', text: 'Scan me' });
      const bad = await http(t.origin, 'POST', '/v1/templates', { key: org.apiKey, body: { name: 'Bad', design: { frame: { style: 'box', text: '' } } } });
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', field: 'design.frame.text' });
    });
  });

  describe('PDF and WebP downloads', () => {
    let code: { id: string; short_url: string };
    beforeAll(async () => {
      code = (await create({ name: 'Print me', target: { type: 'url', destination: 'https://example.com/' }, design: { frame: { style: 'box' } } })).body;
    });

    it('answers a vector PDF whose symbol is print_mm wide (default 50), size ignored', async () => {
      const dl = await get(t, `/v1/qr-codes/${code.id}/download?format=pdf&size=99999`, org.apiKey);
      expect(dl.status).toBe(200);
      expect(dl.headers.get('content-type')).toBe('application/pdf');
      expect(dl.headers.get('content-disposition')).toBe('attachment; filename="print-me.pdf"');
      const pdf = await bytesOf(dl);
      const drawing = await pdfDrawing(pdf);
      expect(drawing).toMatchObject({ pages: 1, images: 0 });
      expect(drawing.paths).toBeGreaterThan(0);
      const wide = await pdfDrawing(await bytesOf(await get(t, `/v1/qr-codes/${code.id}/download?format=pdf&print_mm=100`, org.apiKey)));
      expect(wide.width / drawing.width).toBeCloseTo(2, 3);
    });

    it.each([
      ['?format=pdf&print_mm=9', 'print_mm'],
      ['?format=pdf&print_mm=1001', 'print_mm'],
      ['?format=pdf&print_mm=abc', 'print_mm'],
      ['?format=tiff', 'format'],
    ])('refuses %s with 400 naming %s', async (query, field) => {
      const res = await http(t.origin, 'GET', `/v1/qr-codes/${code.id}/download${query}`, { key: org.apiKey });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field });
    });

    it('names the formats and their content types in the OpenAPI document', async () => {
      const doc = (await http(t.origin, 'GET', '/docs/openapi.json')).body;
      const op = doc.paths['/v1/qr-codes/{id}/download'].get;
      expect(Object.keys(op.responses['200'].content)).toEqual(expect.arrayContaining(['image/svg+xml', 'image/png', 'image/webp', 'application/pdf']));
      const format = op.parameters.find((p: { name: string }) => p.name === 'format');
      expect(format.schema.enum).toEqual(['svg', 'png', 'webp', 'pdf']);
      expect(op.parameters.map((p: { name: string }) => p.name)).toContain('print_mm');
    });

    it('puts PDFs and WebPs in batch ZIPs', async () => {
      const batch = await http(t.origin, 'POST', '/v1/batches', {
        key: org.apiKey,
        body: { design: { frame: { style: 'banner_top', text: 'Table' } }, items: [{ name: 'T1', target: { type: 'url', destination: 'https://example.com/1' } }] },
      });
      expect(batch.status).toBe(202);
      const done = await eventually(async () => {
        const res = await http(t.origin, 'GET', `/v1/batches/${batch.body.id}`, { key: org.apiKey });
        return res.body.status !== 'processing' ? res.body : undefined;
      }, 30_000);
      const shortUrl = (await http(t.origin, 'GET', `/v1/qr-codes/${done.items[0].qr_code_id}`, { key: org.apiKey })).body.short_url;
      for (const format of ['pdf', 'webp']) {
        const zip = await get(t, `/v1/batches/${batch.body.id}/download?format=${format}&size=500&print_mm=40`, org.apiKey);
        expect(zip.status).toBe(200);
        const entries = unzip(await bytesOf(zip));
        const file = [...entries.keys()].find((n) => n.endsWith(`.${format}`))!;
        expect(file).toMatch(new RegExp(`^t1-qr_[0-9A-Za-z]+\\.${format}$`));
        const body = entries.get(file)!;
        if (format === 'pdf') expect(await pdfDrawing(body)).toMatchObject({ pages: 1, images: 0 });
        else await expectDecodes(body, shortUrl);
      }
      const bad = await http(t.origin, 'GET', `/v1/batches/${batch.body.id}/download?format=pdf&print_mm=5`, { key: org.apiKey });
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', field: 'print_mm' });
    });
  });

  describe('data: URL logos', () => {
    it('stores a logo sent as a data: URL, like a fetched one', async () => {
      const res = await create({ type: 'static', target: { type: 'text', text: 'hello logo' }, design: { logo: { url: await logoDataUrl() } } });
      expect(res.status).toBe(201);
      expect(res.body.design).toMatchObject({ has_logo: true, error_correction: 'H' });
      expect(JSON.stringify(res.body)).not.toContain('data:image');
      await expectDecodes(await bytesOf(await get(t, `/v1/qr-codes/${res.body.id}/download?format=png&size=600`, org.apiKey)), 'hello logo');
    });

    it('rasterizes an SVG logo: no script survives into the stored image', async () => {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" onload="alert(1)"><script>alert(2)</script><rect width="100" height="100" fill="#123"/></svg>';
      const res = await create({ type: 'static', target: { type: 'text', text: 'svg logo' }, design: { logo: { url: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` } } });
      expect(res.status).toBe(201);
      const stored = await (await fetch(res.body.image_url.replace(/^https?:\/\/[^/]+/, t.origin))).text().catch(() => '');
      expect(stored).not.toMatch(/<script|onload/);
      const dl = await (await get(t, `/v1/qr-codes/${res.body.id}/download?format=svg`, org.apiKey)).text();
      expect(dl).not.toMatch(/<script|onload|image\/svg\+xml/);
      expect(dl).toContain('data:image/png;base64,');
    });

    it.each([
      ['data:text/html;base64,PGgxPmhpPC9oMT4=', /PNG, JPEG, WebP or SVG/],
      [`data:image/png;base64,${Buffer.from('GIF89a-not-a-png').toString('base64')}`, /not a PNG, JPEG, WebP or SVG/],
      [`data:image/png;base64,${Buffer.alloc(1024 * 1024 + 10, 1).toString('base64')}`, /larger than 1 MB/],
      [`data:image/svg+xml,${encodeURIComponent('<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>')}`, /entity/],
    ])('refuses a bad data: URL with 400 on design.logo.url (%#)', async (url, message) => {
      const before = await countCodes();
      const res = await create({ type: 'static', target: { type: 'text', text: 'x' }, design: { logo: { url } } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'design.logo.url' });
      expect(res.body.error.message).toMatch(message);
      expect(await countCodes()).toBe(before);
    });
  });

  describe('POST /v1/qr-codes/preview', () => {
    const preview = (query: string, body: unknown, key = org.apiKey) =>
      fetch(`${t.origin}/v1/qr-codes/preview${query}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    it('answers the image a code would get, storing and counting nothing', async () => {
      const before = await countCodes();
      const svg = await preview('', { target: { type: 'url', destination: 'https://example.com/' }, design: { frame: FRAME } });
      expect(svg.status).toBe(200);
      expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(svg.headers.get('ratelimit-limit')).toBeTruthy();
      expect(await svg.text()).toMatch(/^<svg/);

      const png = await preview('?format=png&size=400', { type: 'static', target: { type: 'text', text: 'preview me' }, design: { shapes: { body: 'dots' } } });
      expect(png.headers.get('content-type')).toBe('image/png');
      const image = await bytesOf(png);
      expect(await sharp(image).metadata()).toMatchObject({ width: 400, height: 400 });
      await expectDecodes(image, 'preview me');

      const webp = await preview('?format=webp&size=300', {});
      expect(webp.headers.get('content-type')).toBe('image/webp');
      // A dynamic body encodes a placeholder short URL of the real length on the scan host.
      const decoded = (await decodeBoth(await bytesOf(webp))).zxing!;
      const real = (await create({ target: { type: 'url', destination: 'https://example.com/' } })).body.short_url as string;
      expect(decoded.length).toBe(real.length);
      expect(new URL(decoded).host).toBe(new URL(real).host);
      expect(await countCodes()).toBe(before + 1); // only the code created for comparison
    });

    it('reports scannability with check=true', async () => {
      const plain = await preview('?check=true', { type: 'static', target: { type: 'text', text: 'hello' } });
      expect(plain.status).toBe(200);
      const report = (await plain.json()) as Record<string, any>;
      expect(report).toEqual({ decodes: true, contrast_ratio: 21, logo_coverage: 0, modules: 21, min_print_mm: 11.6, warnings: [] });

      const styled = (await (
        await preview('?check=true&size=600', {
          type: 'static',
          target: { type: 'text', text: 'hello' },
          design: { colors: { foreground: '#666666' }, logo: { url: await logoDataUrl(), clear_background: false }, error_correction: 'Q', transparent_background: true },
        })
      ).json()) as Record<string, any>;
      expect(styled.decodes).toBe(true);
      expect(styled.contrast_ratio).toBeCloseTo(5.74, 1);
      expect(styled.logo_coverage).toBeCloseTo(0.2, 2);
      expect(styled.warnings.map((w: { code: string }) => w.code)).toEqual(['logo_error_correction', 'logo_over_modules', 'transparent_background']);
      // A contrast just under 4.5 (4.49995) shows as 4.49, beside the warning that says so.
      const edge = (await (await preview('?check=true', { type: 'static', target: { type: 'text', text: 'hello' }, design: { colors: { foreground: '#008580' } } })).json()) as Record<string, any>;
      expect(edge.contrast_ratio).toBe(4.49);
      expect(edge.warnings).toEqual([{ code: 'low_contrast', message: expect.stringContaining('A contrast of 4.49:1') }]);
    });

    it.each([
      [{ design: { shapes: { body: 'stars' } } }, 'design.shapes.body'],
      [{ design: { frame: { style: 'box', text: 'x'.repeat(30) } } }, 'design.frame.text'],
      [{ target: { type: 'url', destination: 'ftp://nope' } }, 'target.destination'],
      [{ type: 'static' }, 'target'],
      [{ name: 'not here' }, 'name'],
      [{ design: { logo: { url: 'data:text/plain,hi' } } }, 'design.logo.url'],
    ])('refuses %j with the same 400 as creation (%s)', async (body, field) => {
      const res = await preview('', body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({ code: 'invalid_request', field });
    });

    it('refuses pdf, a bad size and an unknown template; needs qr:read', async () => {
      expect(((await (await preview('?format=pdf', {})).json()) as any).error.field).toBe('format');
      expect(((await (await preview('?format=png&size=50', {})).json()) as any).error.field).toBe('size');
      expect((await preview('', { template_id: 'tpl_doesnotexist1234567' })).status).toBe(404);
      const writer = await createOrg(t, { plan: 'pro', scopes: ['qr:write'] });
      const denied = await preview('', {}, writer.apiKey);
      expect(denied.status).toBe(403);
      expect(((await denied.json()) as any).error.code).toBe('insufficient_scope');
    });
  });
});

/** The entries of a ZIP (central directory; stored or deflated). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let i = zip.length - 22; i >= 0; i--) {
    if (zip.readUInt32LE(i) !== 0x06054b50) continue;
    let p = zip.readUInt32LE(i + 16);
    const count = zip.readUInt16LE(i + 10);
    for (let n = 0; n < count; n++) {
      const method = zip.readUInt16LE(p + 10);
      const size = zip.readUInt32LE(p + 20);
      const nameLength = zip.readUInt16LE(p + 28);
      const extra = zip.readUInt16LE(p + 30);
      const comment = zip.readUInt16LE(p + 32);
      const offset = zip.readUInt32LE(p + 42);
      const name = zip.subarray(p + 46, p + 46 + nameLength).toString('utf8');
      const start = offset + 30 + zip.readUInt16LE(offset + 26) + zip.readUInt16LE(offset + 28);
      const data = zip.subarray(start, start + size);
      out.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
      p += 46 + nameLength + extra + comment;
    }
    break;
  }
  return out;
}
