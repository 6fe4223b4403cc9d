import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsImageStorage } from './fs-image-storage';
import { contentKey, contentTypeOf, fileKey, isImageKey } from './image-storage';
import { S3ImageStorage } from './s3-image-storage';
import { createStorage } from './storage.factory';
import { AppConfig, loadConfig } from '../../../common/config/config';

/** The variables loadConfig requires. */
const base = { DATABASE_URL: 'postgres://u:p@localhost:5432/db', REDIS_URL: 'redis://localhost:6379', APP_SECRET: 'a-test-app-secret-0123456789', DASHBOARD_JWT_SECRET: 'a-test-dashboard-secret-0123456789' };
/** A whole configuration with the storage fields a test sets. */
const configWith = (fields: Partial<AppConfig>): AppConfig => ({ ...loadConfig(base), ...fields });

async function collect(stream: Readable | null): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream!) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

describe('image keys', () => {
  it('are content hashes with an image extension, and nothing else', () => {
    const key = contentKey('<svg/>', 'svg');
    expect(key).toMatch(/^[0-9a-f]{32}\.svg$/);
    expect(contentKey('<svg/>', 'svg')).toBe(key);
    expect(contentKey('<svg />', 'svg')).not.toBe(key);
    expect(isImageKey(key)).toBe(true);
    for (const bad of ['../etc/passwd', `../${key}`, `${key}/..`, 'a/b.svg', `${key.slice(0, 31)}.svg`, `${key}.svg`, key.toUpperCase(), `${key.slice(0, -4)}.html`, '', '.svg']) {
      expect(isImageKey(bad)).toBe(false);
    }
    expect(contentTypeOf(key)).toBe('image/svg+xml');
    expect(contentTypeOf(contentKey('x', 'png'))).toBe('image/png');
  });
});

describe('FsImageStorage', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'scanlink-storage-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('puts, gets and deletes by key, creating the directory on first write', async () => {
    const storage = new FsImageStorage(join(dir, 'nested', 'images'), 'https://img.example/images');
    const bytes = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    const key = contentKey(bytes, 'svg');
    expect(await storage.get(key)).toBeNull();
    await storage.put(key, bytes, 'image/svg+xml');
    await storage.put(key, bytes, 'image/svg+xml'); // same content, same key: harmless
    expect(await storage.get(key)).toEqual({ bytes, contentType: 'image/svg+xml' });
    expect(readdirSync(join(dir, 'nested', 'images'))).toEqual([key]); // no temp files left behind
    expect(storage.url(key)).toBe(`https://img.example/images/${key}`);
    await storage.delete(key);
    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
  });

  it('moves an uploaded file in under its file key and reads it whole or as a byte range', async () => {
    const storage = new FsImageStorage(join(dir, 'images'), 'http://x/images');
    const bytes = Buffer.from('%PDF-1.4 uploaded bytes');
    const source = join(dir, 'upload');
    writeFileSync(source, bytes);
    const key = fileKey(createHash('sha256').update(bytes).digest('hex'));
    await storage.putFile(key, source);
    expect(existsSync(source)).toBe(false);
    expect(await collect(await storage.read(key))).toEqual(bytes);
    expect(await collect(await storage.read(key, { start: 5, end: 7 }))).toEqual(bytes.subarray(5, 8));
    expect(await storage.read(fileKey('0'.repeat(64)))).toBeNull();
    expect(await storage.read('../upload')).toBeNull();
    // An uploaded file is not an image: the /images route (get) never serves it.
    expect(await storage.get(key)).toBeNull();
    await storage.delete(key);
    expect(readdirSync(join(dir, 'images'))).toEqual([]);
    await expect(storage.putFile('../x', source)).rejects.toThrow(/Not a file key/);
  });

  it('never reads or writes outside its directory', async () => {
    const storage = new FsImageStorage(join(dir, 'images'), 'http://x/images');
    await expect(storage.put('../escape.svg', Buffer.from('x'), 'image/svg+xml')).rejects.toThrow(/Not an image key/);
    expect(existsSync(join(dir, 'escape.svg'))).toBe(false);
    expect(await storage.get('../../../../etc/passwd')).toBeNull();
    await storage.delete('../images');
    expect(existsSync(dir)).toBe(true);
  });
});

/** A minimal S3-compatible endpoint (path-style PUT/GET/DELETE), enough to prove the driver's requests. */
function fakeS3(): Promise<{ server: Server; url: string; objects: Map<string, { body: Buffer; type: string; cache: string }>; requests: string[] }> {
  const objects = new Map<string, { body: Buffer; type: string; cache: string }>();
  const requests: string[] = [];
  const read = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  const server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent((req.url ?? '').split('?')[0]);
      requests.push(`${req.method} ${path} ${req.headers.authorization ? 'signed' : 'unsigned'}`);
      if (req.method === 'PUT') {
        objects.set(path, { body: await read(req), type: String(req.headers['content-type']), cache: String(req.headers['cache-control']) });
        res.writeHead(200, { etag: '"x"' }).end();
      } else if (req.method === 'GET') {
        const o = objects.get(path);
        if (!o) {
          res.writeHead(404, { 'content-type': 'application/xml' }).end('<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>missing</Message></Error>');
          return;
        }
        const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
        if (range) {
          const part = o.body.subarray(Number(range[1]), Number(range[2]) + 1);
          res.writeHead(206, { 'content-type': o.type, 'content-length': part.length, 'content-range': `bytes ${range[1]}-${range[2]}/${o.body.length}` }).end(part);
          return;
        }
        res.writeHead(200, { 'content-type': o.type, 'content-length': o.body.length }).end(o.body);
      } else if (req.method === 'DELETE') {
        objects.delete(path);
        res.writeHead(204).end();
      } else res.writeHead(405).end();
    })();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, objects, requests })),
  );
}

describe('S3ImageStorage', () => {
  it('stores, reads and deletes objects in the bucket with their type and immutable caching', async () => {
    const s3 = await fakeS3();
    const config = configWith({
      storageDriver: 's3',
      imageBaseUrl: 'https://cdn.example/qr',
      s3: { bucket: 'codes', region: 'eu-west-1', endpoint: s3.url, accessKeyId: 'AKIATEST', secretAccessKey: 'secret-test-key', forcePathStyle: true },
    });
    const storage = createStorage(config) as S3ImageStorage;
    expect(storage).toBeInstanceOf(S3ImageStorage);
    try {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
      const key = contentKey(png, 'png');
      expect(await storage.get(key)).toBeNull();
      await storage.put(key, png, 'image/png');
      expect(s3.objects.get(`/codes/${key}`)).toEqual({ body: png, type: 'image/png', cache: 'public, max-age=31536000, immutable' });
      expect(await storage.get(key)).toEqual({ bytes: png, contentType: 'image/png' });
      expect(storage.url(key)).toBe(`https://cdn.example/qr/${key}`);
      await storage.delete(key);
      expect(s3.objects.size).toBe(0);
      expect(s3.requests.every((r) => r.endsWith('signed') && !r.endsWith('unsigned'))).toBe(true);
      await expect(storage.put('../x.png', png, 'image/png')).rejects.toThrow(/Not an image key/);
    } finally {
      storage.destroy();
      await new Promise((r) => s3.server.close(r));
    }
  });

  it('uploads a file from disk as one streamed PUT and reads it back whole or as a byte range', async () => {
    const s3 = await fakeS3();
    const dir = mkdtempSync(join(tmpdir(), 'scanlink-s3-'));
    const storage = new S3ImageStorage({ bucket: 'codes', region: 'eu-west-1', endpoint: s3.url, accessKeyId: 'AKIATEST', secretAccessKey: 'secret', forcePathStyle: true }, 'https://cdn.example/qr');
    try {
      const bytes = Buffer.from('%PDF-1.4 uploaded bytes');
      const source = join(dir, 'upload');
      writeFileSync(source, bytes);
      const key = fileKey(createHash('sha256').update(bytes).digest('hex'));
      await storage.putFile(key, source, bytes.length, 'application/pdf');
      expect(s3.objects.get(`/codes/${key}`)).toMatchObject({ body: bytes, type: 'application/pdf' });
      expect(await collect(await storage.read(key))).toEqual(bytes);
      expect(await collect(await storage.read(key, { start: 5, end: 7 }))).toEqual(bytes.subarray(5, 8));
      expect(await storage.read(fileKey('0'.repeat(64)))).toBeNull();
      await storage.delete(key);
      expect(s3.objects.size).toBe(0);
      await expect(storage.putFile('abc.svg', source, 1, 'image/svg+xml')).rejects.toThrow(/Not a file key/);
    } finally {
      storage.destroy();
      rmSync(dir, { recursive: true, force: true });
      await new Promise((r) => s3.server.close(r));
    }
  });

  it('is the filesystem driver unless STORAGE_DRIVER=s3', () => {
    const storage = createStorage(configWith({ storageDriver: 'fs', storageDir: '/tmp/x', imageBaseUrl: 'http://h/images' }));
    expect(storage).toBeInstanceOf(FsImageStorage);
  });
});

describe('storage configuration', () => {
  it('defaults to files under STORAGE_DIR and images at IMAGE_BASE_URL', () => {
    const c = loadConfig({ ...base, STORAGE_DIR: '/srv/scanlink/images', IMAGE_BASE_URL: 'https://img.example.com/q/' });
    expect(c.storageDriver).toBe('fs');
    expect(c.storageDir).toBe('/srv/scanlink/images');
    expect(c.imageBaseUrl).toBe('https://img.example.com/q');
    expect(c.s3).toBeUndefined();
    expect(c.logoAllowHosts).toEqual([]);
  });

  it('reads the S3 variables, and requires a bucket', () => {
    const c = loadConfig({
      ...base,
      STORAGE_DRIVER: 's3',
      S3_BUCKET: 'codes',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY_ID: 'minio',
      S3_SECRET_ACCESS_KEY: 'minio-secret',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(c.s3).toEqual({ bucket: 'codes', region: 'us-east-1', endpoint: 'http://minio:9000', accessKeyId: 'minio', secretAccessKey: 'minio-secret', forcePathStyle: true });
    expect(() => loadConfig({ ...base, STORAGE_DRIVER: 's3' })).toThrow(/S3_BUCKET is required when STORAGE_DRIVER=s3/);
    expect(() => loadConfig({ ...base, STORAGE_DRIVER: 'gcs' })).toThrow(/STORAGE_DRIVER/);
    expect(() => loadConfig({ ...base, S3_FORCE_PATH_STYLE: 'yes' })).toThrow(/S3_FORCE_PATH_STYLE/);
    // a value that is not a string (an env object built in code) is hidden all the same
    const env: NodeJS.ProcessEnv = { ...base, S3_ENDPOINT: 'nope' };
    Reflect.set(env, 'S3_SECRET_ACCESS_KEY', 42);
    expect(() => loadConfig(env)).toThrow(
      /(?=[\s\S]*S3_SECRET_ACCESS_KEY=\(hidden\))(?=[\s\S]*S3_ENDPOINT="nope")/,
    );
  });

  it('limits uploads to FILE_MAX_BYTES, 25 MB unless set', () => {
    expect(loadConfig(base).fileMaxBytes).toBe(25 * 1024 * 1024);
    expect(loadConfig({ ...base, FILE_MAX_BYTES: '1048576' }).fileMaxBytes).toBe(1048576);
    expect(() => loadConfig({ ...base, FILE_MAX_BYTES: '0' })).toThrow(/FILE_MAX_BYTES/);
    expect(() => loadConfig({ ...base, FILE_MAX_BYTES: '25MB' })).toThrow(/FILE_MAX_BYTES/);
  });

  it('parses LOGO_ALLOW_HOSTS like the other allow-lists', () => {
    expect(loadConfig({ ...base, LOGO_ALLOW_HOSTS: ' 127.0.0.1, Logo.Test ,' }).logoAllowHosts).toEqual(['127.0.0.1', 'logo.test']);
  });
});
