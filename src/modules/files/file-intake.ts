import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromFile } from 'file-type';
import { allowedType, type AllowedType } from './file-types';

/** An upload written to a temporary file: its SHA-256, size and sniffed type (null: not an accepted type). */
export interface Intake {
  path: string;
  sha256: string;
  size: number;
  type: AllowedType | null;
}

/** The stream ended early because it exceeded the size limit (the multipart parser truncates it there). */
export class TooLargeError extends Error {}

/**
 * Streams `source` into a new file under `dir`, hashing and counting on the way (memory stays flat whatever the size),
 * then sniffs the type from the file's first bytes. `truncated()` tells whether the parser cut the stream at the size
 * limit: then the temporary file is removed and TooLargeError thrown. On any failure nothing is left under `dir`.
 */
export async function takeIn(source: Readable, dir: string, truncated: () => boolean): Promise<Intake> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `upload-${randomBytes(12).toString('hex')}`);
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, meter, createWriteStream(path, { flags: 'wx' }));
    if (truncated()) throw new TooLargeError();
    const sniffed = size > 0 ? await fileTypeFromFile(path) : undefined;
    return { path, sha256: hash.digest('hex'), size, type: allowedType(sniffed?.ext) };
  } catch (err) {
    await rm(path, { force: true });
    throw err;
  }
}
