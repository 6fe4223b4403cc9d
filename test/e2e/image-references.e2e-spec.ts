import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { ImagesService } from '../../src/modules/images/images.service';
import { QrCodeImagesService } from '../../src/modules/qr-codes/qr-code-images.service';
import { purgeTrash } from '../../src/modules/qr-codes/qr-lifecycle';
import type { Design } from '../../src/modules/rendering/design';
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
  // storage_deletes is one table for the whole database, which other test files' apps share: this file looks only at
  // the keys its own app stored (every file that appeared in its private storage directory).
  const seen = new Set<string>();
  const remember = () => {
    for (const f of readdirSync(dir, { recursive: true }) as string[]) seen.add(f);
  };
  const queued = async () => {
    remember();
    const rows = await db(api).execute<{ key: string; attempts: number; last_error: string | null }[]>('select key, attempts, last_error from storage_deletes order by key');
    return rows.filter((r) => seen.has(r.key));
  };
  const mine = (r: { deleted: string[]; failed: string[] }) => ({ deleted: r.deleted.filter((k) => seen.has(k)), failed: r.failed.filter((k) => seen.has(k)) });

  beforeAll(async () => {
    const logo = await sharp({ create: { width: 96, height: 96, channels: 4, background: '#1a5276' } }).png().toBuffer();
    // Other logos for the tests that need one no earlier test's code still uses.
    const others: Record<string, Buffer> = {
      '/logo-b.png': await sharp({ create: { width: 96, height: 96, channels: 4, background: '#7b241c' } }).png().toBuffer(),
      '/logo-c.png': await sharp({ create: { width: 96, height: 96, channels: 4, background: '#145a32' } }).png().toBuffer(),
    };
    server = createServer((req, res) => {
      if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(logo);
      else if (req.url && others[req.url]) res.writeHead(200, { 'content-type': 'image/png' }).end(others[req.url]);
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

  const create = async (n: number, logo = '/logo.png') => {
    const res = await http(api.origin, 'POST', '/v1/qr-codes', {
      key: org.apiKey,
      body: { target: { type: 'url', destination: `https://example.com/shared/${n}` }, design: { logo: { url: `${origin}${logo}` } } },
    });
    expect(res.status).toBe(201);
    remember();
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
    remember();
    expect(purged.deleted).toBe(1);
    expect(patched.status).toBe(200);
    expect(purged.orphanKeys).not.toContain(logoFile);
    expect(existsSync(join(dir, logoFile))).toBe(true);
    expect((await http(api.origin, 'GET', `/v1/qr-codes/${b}/download?format=png&size=300`, { key: org.apiKey })).status).toBe(200);

    // B stops using the logo: it is the last use, so the logo goes, and nothing stays queued.
    const noLogo = await http(api.origin, 'PATCH', `/v1/qr-codes/${b}`, { key: org.apiKey, body: { design: { logo: null } } });
    expect(noLogo.status).toBe(200);
    remember();
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
      remember();
    } finally {
      spy.mockRestore();
    }
    expect(existsSync(join(dir, logoFile))).toBe(true);
    expect(await queued()).toEqual([{ key: logoFile, attempts: 1, last_error: 'Error: storage unavailable' }]);

    const images = api.app.get(QrCodeImagesService, { strict: false });
    // Not due yet: the sweep leaves it.
    expect(mine(await images.deleteQueued())).toEqual({ deleted: [], failed: [] });
    await db(api).execute(`update storage_deletes set due_at = now() - interval '1 second' where key = ?`, [logoFile]);
    expect(mine(await images.deleteQueued())).toEqual({ deleted: [logoFile], failed: [] });
    expect(existsSync(join(dir, logoFile))).toBe(false);
    expect(await queued()).toEqual([]);

    // Queued again, then a new code takes the same logo before the sweep: the sweep keeps it.
    const b = await create(4);
    expect(existsSync(join(dir, logoFile))).toBe(true);
    await db(api).execute(`insert into storage_deletes (key, due_at) values (?, now() - interval '1 second')`, [logoFile]);
    expect(mine(await images.deleteQueued())).toEqual({ deleted: [], failed: [] });
    expect(existsSync(join(dir, logoFile))).toBe(true);
    expect(await queued()).toEqual([]);
    expect((await http(api.origin, 'GET', `/v1/qr-codes/${b}`, { key: org.apiKey })).status).toBe(200);
  });

  it('keeps a logo a new code is about to use while the last code using it is purged (stored before referenced)', async () => {
    const before = new Set(pngs());
    const a = await create(5, '/logo-b.png');
    const [logoFile] = pngs().filter((f) => !before.has(f));
    expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${a}`, { key: org.apiKey })).status).toBe(200);
    const images = api.app.get(QrCodeImagesService, { strict: false });
    // B's creation stores the (same, content-addressed) logo and its image, then waits just before the transaction that
    // records its reference; meanwhile A, the logo's only user, is purged and its orphans deleted.
    const original = images.hold.bind(images);
    let reached!: () => void;
    const atHold = new Promise<void>((r) => (reached = r));
    let go!: () => void;
    const gate = new Promise<void>((r) => (go = r));
    const spy = jest.spyOn(images, 'hold').mockImplementationOnce(async (tx, keys) => {
      reached();
      await gate;
      return original(tx, keys);
    });
    try {
      const creating = create(6, '/logo-b.png');
      await atHold;
      const purged = await purgeTrash(db(api), { organizationId: org.organizationId });
      expect(purged.orphanKeys).toContain(logoFile);
      await images.deleteQueued(purged.orphanKeys);
      expect(existsSync(join(dir, logoFile))).toBe(true);
      go();
      const b = await creating;
      expect(existsSync(join(dir, logoFile))).toBe(true);
      expect(await queued()).toEqual([]);
      const [row] = await db(api).execute<{ logo_key: string }[]>('select logo_key from qr_codes where id = ?', [b]);
      expect(row.logo_key).toBe(logoFile);

      // B was the logo's last use: deleted and purged, the logo goes.
      expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${b}`, { key: org.apiKey })).status).toBe(200);
      const last = await purgeTrash(db(api), { organizationId: org.organizationId });
      await images.deleteQueued(last.orphanKeys);
      expect(existsSync(join(dir, logoFile))).toBe(false);
      expect(await queued()).toEqual([]);
    } finally {
      go();
      spy.mockRestore();
    }
  });

  it('deletes what a writer stored and never referenced once it unpins, or once its pin runs out when it died', async () => {
    const images = api.app.get(QrCodeImagesService, { strict: false });
    const design = { logo: { url: `${origin}/logo-c.png` } } as unknown as Design;
    // A writer that gives up: a release while it is pinned waits; its unpin deletes the object.
    const pins = images.pins();
    const key = (await images.prepareLogo(design, pins))!;
    remember();
    expect(existsSync(join(dir, key))).toBe(true);
    await images.release([key]);
    expect(existsSync(join(dir, key))).toBe(true);
    await images.unpin(pins);
    expect(existsSync(join(dir, key))).toBe(false);
    expect(await queued()).toEqual([]);

    // A writer that died after storing: nothing deletes the object while its pin holds; the sweep does once it ran out.
    const dead = images.pins();
    const again = (await images.prepareLogo(design, dead))!;
    expect(again).toBe(key);
    expect(mine(await images.deleteQueued([again]))).toEqual({ deleted: [], failed: [] });
    expect(existsSync(join(dir, key))).toBe(true);
    expect((await queued()).map((r) => r.key)).toEqual([key]);
    await db(api).execute(`update storage_pins set until = now() - interval '1 second' where token = ?`, [dead.token]);
    await db(api).execute(`update storage_deletes set due_at = now() - interval '1 second' where key = ?`, [key]);
    expect(mine(await images.deleteQueued())).toEqual({ deleted: [key], failed: [] });
    expect(existsSync(join(dir, key))).toBe(false);
    expect(await queued()).toEqual([]);
    const [{ n }] = await db(api).execute<{ n: string }[]>('select count(*) as n from storage_pins where token = ?', [dead.token]);
    expect(Number(n)).toBe(0);
  });
});
