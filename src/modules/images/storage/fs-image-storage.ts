import { copyFile, mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { assertImageKey, type ByteRange, contentTypeOf, ImageStorage, isFileKey, isImageKey, isStorageKey, StoredObject } from './image-storage';

/** Images as files under one directory (STORAGE_DIR), served by the scan process under /images/<key>. */
export class FsImageStorage implements ImageStorage {
  private ready: Promise<unknown> | null = null;

  constructor(
    private readonly dir: string,
    private readonly baseUrl: string,
  ) {}

  async put(key: string, bytes: Buffer, _contentType: string): Promise<void> {
    assertImageKey(key);
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    // Write then rename: a reader never sees half a file, and concurrent writers of the same content agree.
    const tmp = join(this.dir, `.${key}.${randomBytes(6).toString('hex')}.tmp`);
    await writeFile(tmp, bytes);
    await rename(tmp, join(this.dir, key));
  }

  async get(key: string): Promise<StoredObject | null> {
    if (!isImageKey(key)) return null;
    try {
      return { bytes: await readFile(join(this.dir, key)), contentType: contentTypeOf(key) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    if (!isStorageKey(key)) return;
    await rm(join(this.dir, key), { force: true });
  }

  async putFile(key: string, sourcePath: string): Promise<void> {
    if (!isFileKey(key)) throw new Error(`Not a file key: ${JSON.stringify(key)}`);
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    const target = join(this.dir, key);
    try {
      await rename(sourcePath, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // Another filesystem: copy beside the target, then rename, so a reader never sees half a file.
      const tmp = join(this.dir, `.${key}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        await copyFile(sourcePath, tmp);
        await rename(tmp, target);
      } finally {
        await rm(tmp, { force: true });
      }
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    if (!isStorageKey(key)) return null;
    try {
      const handle = await open(join(this.dir, key), 'r');
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  url(key: string): string {
    return `${this.baseUrl}/${key}`;
  }
}
