import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { ImagesService } from '../../src/modules/images/images.service';
import { QrCodeImagesService } from '../../src/modules/qr-codes/qr-code-images.service';
import { purgeTrash } from '../../src/modules/qr-codes/qr-lifecycle';
import { createOrg, db, http, startApi, TestApp, TestOrg } from '../setup/app';

/** Stored logos and images are shared by the codes that use them, deleted when the last one stops, and a failed
 * storage delete is tried again later instead of being forgotten. */
describe('Image and logo references', () => {
  let server: Server;
  let origin: string;
  let dir: string;
  let api: TestApp;
  let org: TestOrg;
  const pngs = () => (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.png'));
  const queued = async () => db(api).execute<{ key: string; attempts: number; last_error: string | null }[]>('select key, attempts, last_error from storage_deletes order by key');

  beforeAll(async () => {
    const logo = await sharp({ create: { width: 96, height: 96, channels: 4, background: '#1a5276' } }).png().toBuffer();
    server = createServer((req, res) => {
      if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(logo);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'scanlink-refs-'));
    api = await startApi({ STORAGE_DIR: dir, LOGO_ALLOW_HOSTS: '127.0.0.1' });
    org = await createOrg(api, { plan: 'pro' });
  });

  afterAll(async () => {
    await api.close();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const create = async (n: number) => {
    const res = await http(api.origin, 'POST', '/v1/qr-codes', {
      key: org.apiKey,
      body: { target: { type: 'url', destination: `https://example.com/shared/${n}` }, design: { logo: { url: `${origin}/logo.png` } } },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  it('keeps a logo two codes share while one is deleted and the other changes its design, and deletes it with the last use', async () => {
    const a = await create(1);
    const b = await create(2);
    expect(pngs()).toHaveLength(1);
    const [logoFile] = pngs();

    // A is deleted and purged while B changes its colours (same logo), at the same time.
    expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${a}`, { key: org.apiKey })).status).toBe(200);
    const images = api.app.get(QrCodeImagesService, { strict: false });
    const [purged, patched] = await Promise.all([
      purgeTrash(db(api), { organizationId: org.organizationId }).then(async (p) => {
        await images.deleteQueued(p.orphanKeys);
        return p;
      }),
      http(api.origin, 'PATCH', `/v1/qr-codes/${b}`, { key: org.apiKey, body: { design: { colors: { foreground: '#112233' } } } }),
    ]);
    expect(purged.deleted).toBe(1);
    expect(patched.status).toBe(200);
    expect(purged.orphanKeys).not.toContain(logoFile);
    expect(existsSync(join(dir, logoFile))).toBe(true);
    expect((await http(api.origin, 'GET', `/v1/qr-codes/${b}/download?format=png&size=300`, { key: org.apiKey })).status).toBe(200);

    // B stops using the logo: it is the last use, so the logo goes, and nothing stays queued.
    const noLogo = await http(api.origin, 'PATCH', `/v1/qr-codes/${b}`, { key: org.apiKey, body: { design: { logo: null } } });
    expect(noLogo.status).toBe(200);
    expect(existsSync(join(dir, logoFile))).toBe(false);
    expect(await queued()).toEqual([]);
  });

  it('retries a storage delete that failed, and never deletes a key a code took back meanwhile', async () => {
    const a = await create(3);
    const [logoFile] = pngs();
    const storage = api.app.get(ImagesService, { strict: false });
    const original = storage.delete.bind(storage);
    let failedOnce = false;
    // Storage refuses the logo's delete once (the code's old SVG, released with it, is deleted as usual).
    const spy = jest.spyOn(storage, 'delete').mockImplementation(async (key: string) => {
      if (key === logoFile && !failedOnce) {
        failedOnce = true;
        throw new Error('storage unavailable');
      }
      return original(key);
    });
    try {
      const res = await http(api.origin, 'PATCH', `/v1/qr-codes/${a}`, { key: org.apiKey, body: { design: { logo: null } } });
      expect(res.status).toBe(200);
    } finally {
      spy.mockRestore();
    }
    expect(existsSync(join(dir, logoFile))).toBe(true);
    expect(await queued()).toEqual([{ key: logoFile, attempts: 1, last_error: 'Error: storage unavailable' }]);

    const images = api.app.get(QrCodeImagesService, { strict: false });
    // Not due yet: the sweep leaves it.
    expect(await images.deleteQueued()).toEqual({ deleted: [], failed: [] });
    await db(api).execute(`update storage_deletes set due_at = now() - interval '1 second'`);
    expect(await images.deleteQueued()).toEqual({ deleted: [logoFile], failed: [] });
    expect(existsSync(join(dir, logoFile))).toBe(false);
    expect(await queued()).toEqual([]);

    // Queued again, then a new code takes the same logo before the sweep: the sweep keeps it.
    const b = await create(4);
    expect(existsSync(join(dir, logoFile))).toBe(true);
    await db(api).execute(`insert into storage_deletes (key, due_at) values (?, now() - interval '1 second')`, [logoFile]);
    expect(await images.deleteQueued()).toEqual({ deleted: [], failed: [] });
    expect(existsSync(join(dir, logoFile))).toBe(true);
    expect(await queued()).toEqual([]);
    expect((await http(api.origin, 'GET', `/v1/qr-codes/${b}`, { key: org.apiKey })).status).toBe(200);
  });
});
