import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { parseDesign } from '../../src/modules/rendering/design';
import { ImagesService } from '../../src/modules/images/images.service';
import { RenderingService } from '../../src/modules/rendering/rendering.service';
import { closeDecoders, decodeBoth } from '../../src/modules/rendering/testing/qr-decoders';
import { createOrg, eventually, http, isolatedRedisUrl, startApi, startScan, startWorker, TestApp } from '../setup/app';

/** Raw GET that sends the path byte for byte (fetch would normalize `..` segments away). */
function rawGet(origin: string, path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Stored images on the scan host (GET /images/<key>)', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scanlink-images-'));
    t = await startScan({ STORAGE_DIR: dir });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a stored SVG with its type and immutable caching, at image_url', async () => {
    const images = t.app.get(ImagesService, { strict: false });
    const svg = await new RenderingService().renderSvg('https://example.com/hello', parseDesign({ shapes: { body: 'dots' } }), null);
    const key = await images.storeSvg(svg);
    expect(key).toMatch(/^[0-9a-f]{32}\.svg$/);
    expect(images.url(key)).toBe(`${t.config.imageBaseUrl}/${key}`);
    expect(existsSync(join(dir, key))).toBe(true);

    const res = await http(t.origin, 'GET', `/images/${key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.text).toBe(svg);
    const etag = res.headers.get('etag');
    expect(etag).toBe(`"${key.slice(0, 32)}"`);
    const again = await http(t.origin, 'GET', `/images/${key}`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    const png = await sharp(Buffer.from(res.text)).png().toBuffer();
    expect(await decodeBoth(png)).toEqual({ zxing: 'https://example.com/hello', qr: 'https://example.com/hello' });
  });

  it('answers 404 in the error envelope for a key that is not stored', async () => {
    const res = await http(t.origin, 'GET', `/images/${'0'.repeat(32)}.svg`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect(res.body.error.request_id).toBe(res.headers.get('request-id'));
    const bad = await http(t.origin, 'GET', '/images/not-a-key.svg');
    expect(bad.status).toBe(404);
    expect(bad.body.error.code).toBe('not_found');
  });

  it('never serves a file outside the storage directory', async () => {
    for (const path of [
      '/images/..%2Fpackage.json',
      '/images/..%2F..%2F..%2F..%2Fetc%2Fpasswd',
      '/images/%2e%2e%2fpackage.json',
      '/images/../package.json',
      '/images/../../../../etc/passwd',
      '/images/....//package.json',
      '/images/%2Fetc%2Fpasswd',
      '/images/..%5Cpackage.json',
    ]) {
      const res = await rawGet(t.origin, path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.body).not.toMatch(/"name"\s*:\s*"scanlink"|root:x:0:0/);
    }
  });
});

describe('Logo intake (ImagesService.prepareLogo)', () => {
  let server: Server;
  let origin: string;
  let port: number;
  let hits: string[];
  let allowed: TestApp;
  let strict: TestApp;
  let dir: string;
  let pngLogo: Buffer;

  beforeAll(async () => {
    pngLogo = await sharp({ create: { width: 120, height: 120, channels: 4, background: '#c0392b' } }).png().toBuffer();
    const big = Buffer.concat([pngLogo, Buffer.alloc(1024 * 1024 + 10)]);
    const svgWithScript = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">' +
        '<script>fetch("/steal?c="+document.cookie)</script>' +
        '<rect width="100" height="100" fill="#1a5276" onclick="alert(1)"/>' +
        `<image href="http://127.0.0.1:PORT/external-ref" width="10" height="10"/></svg>`,
    );
    hits = [];
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const redirect = /^\/hop\/(\d+)$/.exec(req.url ?? '');
      if (redirect) {
        const n = Number(redirect[1]);
        res.writeHead(302, { location: n > 1 ? `/hop/${n - 1}` : '/logo.png' }).end();
      } else if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(pngLogo);
      else if (req.url === '/logo-named.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end(pngLogo);
      else if (req.url === '/big.png') res.writeHead(200, { 'content-type': 'image/png' }).end(big);
      else if (req.url === '/page.png') res.writeHead(200, { 'content-type': 'image/png' }).end('<!doctype html><p>hello</p>');
      else if (req.url === '/logo.svg') res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(svgWithScript.toString().replace('PORT', String(port)));
      else if (req.url === '/to-metadata') res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else res.writeHead(404).end('nope');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
    dir = mkdtempSync(join(tmpdir(), 'scanlink-logos-'));
    allowed = await startScan({ STORAGE_DIR: dir, LOGO_ALLOW_HOSTS: '127.0.0.1' });
    strict = await startScan({ STORAGE_DIR: dir });
  });

  afterAll(async () => {
    await allowed.close();
    await strict.close();
    await new Promise((r) => server.close(r));
    await closeDecoders();
    rmSync(dir, { recursive: true, force: true });
  });

  const prepare = (app: TestApp, url: string) => app.app.get(ImagesService, { strict: false }).prepareLogo(url);
  const refusal = async (app: TestApp, url: string) => {
    const err = await prepare(app, url).then(
      () => null,
      (e: unknown) => e as { status: number; code: string; message: string; extras: { field?: string } },
    );
    expect(err).not.toBeNull();
    expect({ status: err!.status, code: err!.code, field: err!.extras.field }).toEqual({ status: 400, code: 'invalid_request', field: 'design.logo.url' });
    return err!.message;
  };

  it('leaves no logo behind when a request is refused; a batch checks its logo when accepted and fetches it once for all its items', async () => {
    const apiDir = mkdtempSync(join(tmpdir(), 'scanlink-logo-api-'));
    // Their own Redis database: no other test file's worker takes this batch (it could not fetch from 127.0.0.1).
    const env = { STORAGE_DIR: apiDir, LOGO_ALLOW_HOSTS: '127.0.0.1', REDIS_URL: isolatedRedisUrl(12) };
    const api = await startApi(env);
    const worker = await startWorker(env);
    const pngs = () => (readdirSync(apiDir, { recursive: true }) as string[]).filter((f) => f.endsWith('.png'));
    const logoHits = () => hits.filter((h) => h === '/logo.png').length;
    try {
      const org = await createOrg(api, { plan: 'pro' });
      const logo = { url: `${origin}/logo.png` };
      const tooLong = await http(api.origin, 'POST', '/v1/qr-codes', {
        key: org.apiKey,
        body: { type: 'static', target: { type: 'text', text: 'x'.repeat(1500) }, design: { logo } },
      });
      expect([tooLong.status, tooLong.body.error.code]).toEqual([400, 'payload_too_large']);
      const code = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com/l' } } });
      const badFolder = await http(api.origin, 'PATCH', `/v1/qr-codes/${code.body.id}`, {
        key: org.apiKey,
        body: { folder_id: 'fld_doesnotexist12345678', design: { logo } },
      });
      expect(badFolder.status).toBe(404);
      expect(pngs()).toEqual([]);

      const before = logoHits();
      const batch = await http(api.origin, 'POST', '/v1/batches', {
        key: org.apiKey,
        body: { design: { logo }, items: [1, 2, 3].map((n) => ({ target: { type: 'url', destination: `https://example.com/b/${n}` } })) },
      });
      expect(batch.status).toBe(202);
      // Once when the batch is accepted (checked, not stored: a logo every item would refuse is a 400 up front)...
      expect(logoHits() - before).toBe(1);
      const done = await eventually(async () => {
        const res = await http(api.origin, 'GET', `/v1/batches/${batch.body.id}`, { key: org.apiKey });
        return res.body.status !== 'processing' ? res.body : undefined;
      }, 30_000, 'the batch');
      expect(done).toMatchObject({ status: 'completed', completed_count: 3, error_count: 0 });
      // ...and once for every item of the run, not once per item.
      expect(logoHits() - before).toBe(2);
      expect(pngs()).toHaveLength(1);
    } finally {
      await worker.close();
      await api.close();
      rmSync(apiDir, { recursive: true, force: true });
    }
  });

  it('fetches a logo from a host on LOGO_ALLOW_HOSTS, stores it as PNG and serves it', async () => {
    const key = await prepare(allowed, `${origin}/logo.png`);
    expect(key).toMatch(/^[0-9a-f]{32}\.png$/);
    const res = await fetch(`${allowed.origin}/images/${key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 120, 120]);

    // The stored logo renders into a code that still scans.
    const logo = await allowed.app.get(ImagesService, { strict: false }).logo(key);
    const design = parseDesign({ logo: { url: `${origin}/logo.png` }, shapes: { body: 'rounded' } });
    const png = await new RenderingService().renderPng('https://example.com/with-logo', design, logo, 600);
    expect(await decodeBoth(png)).toEqual({ zxing: 'https://example.com/with-logo', qr: 'https://example.com/with-logo' });
  });

  it('judges the bytes, not the Content-Type or the name', async () => {
    expect(await prepare(allowed, `${origin}/logo-named.txt`)).toMatch(/\.png$/);
    expect(await refusal(allowed, `${origin}/page.png`)).toBe('The logo is not a PNG, JPEG, WebP or SVG image');
  });

  it('follows up to 3 redirects and refuses a fourth', async () => {
    expect(await prepare(allowed, `${origin}/hop/3`)).toMatch(/\.png$/);
    expect(await refusal(allowed, `${origin}/hop/4`)).toMatch(/redirects more than 3 times/);
  });

  it('refuses a logo larger than 1 MB', async () => {
    expect(await refusal(allowed, `${origin}/big.png`)).toBe('The logo is larger than 1 MB');
  });

  it('refuses a URL that answers an error status', async () => {
    expect(await refusal(allowed, `${origin}/missing.png`)).toBe('The logo URL answered HTTP 404');
  });

  it('rasterizes an SVG logo: its script is gone and its external reference is never fetched', async () => {
    hits.length = 0;
    const key = await prepare(allowed, `${origin}/logo.svg`);
    expect(key).toMatch(/^[0-9a-f]{32}\.png$/);
    expect(hits).toEqual(['/logo.svg']);
    const res = await fetch(`${allowed.origin}/images/${key}`);
    expect(res.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(bytes.includes(Buffer.from('script'))).toBe(false);
    const { data } = await sharp(bytes).extract({ left: 50, top: 50, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
    expect([...data.subarray(0, 3)]).toEqual([0x1a, 0x52, 0x76]);
  });

  it('re-checks every redirect: an allowed host cannot bounce the fetch to the metadata address', async () => {
    expect(await refusal(allowed, `${origin}/to-metadata`)).toMatch(/not allowed: 169\.254\.169\.254 is not a public address/);
  });

  it('refuses loopback, link-local/metadata and private addresses without the allow-list', async () => {
    const before = hits.length;
    expect(await refusal(strict, `${origin}/logo.png`)).toMatch(/not allowed: 127\.0\.0\.1 is not a public address/);
    expect(await refusal(strict, 'http://169.254.169.254/latest/meta-data/')).toMatch(/169\.254\.169\.254 is not a public address/);
    expect(await refusal(strict, 'http://10.0.0.8/logo.png')).toMatch(/10\.0\.0\.8 is not a public address/);
    expect(await refusal(strict, 'http://[::1]/logo.png')).toMatch(/::1 is not a public address/);
    expect(await refusal(strict, `http://localhost:${port}/logo.png`)).toMatch(/localhost is not a public host/);
    expect(hits.length).toBe(before); // nothing reached the local server
  });

  it('refuses a hostname that resolves to a non-public address (checked after DNS, at connect time)', async () => {
    // This machine's own name resolves through /etc/hosts to loopback or a private address.
    const name = hostname().toLowerCase();
    const before = hits.length;
    expect(await refusal(strict, `http://${name}:${port}/logo.png`)).toMatch(new RegExp(`not allowed: ${name.replace(/\./g, '\\.')} resolves to a non-public address`));
    expect(hits.length).toBe(before);
  });

  it('names an unreachable host clearly', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await refusal(allowed, `http://127.0.0.1:${closedPort}/logo.png`)).toBe('The logo could not be fetched (ECONNREFUSED)');
  });
});
