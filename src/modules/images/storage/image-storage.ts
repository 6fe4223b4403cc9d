import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';

/** Where rendered images and uploaded logos live. One interface, two drivers (filesystem, S3-compatible). */
export interface ImageStorage {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** The stored bytes and their type, or null when nothing is stored under `key`. */
  get(key: string): Promise<StoredObject | null>;
  /** Removes the object; removing a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Stores the finished file at `sourcePath` (an upload, hashed already) under a file key, streamed, never read into
   * memory whole. The source file may be moved away: the caller removes whatever is left of it. */
  putFile(key: string, sourcePath: string, size: number, contentType: string): Promise<void>;
  /** The bytes of a stored object, `start`..`end` inclusive when a range is given, as a stream; null when nothing is
   * stored under `key`. */
  read(key: string, range?: ByteRange): Promise<Readable | null>;
  /** Public URL of the object on the image host. */
  url(key: string): string;
}

export interface StoredObject {
  bytes: Buffer;
  contentType: string;
}

export interface ByteRange {
  start: number;
  end: number;
}

export const IMAGE_STORAGE = Symbol('IMAGE_STORAGE');

export const CONTENT_TYPES = {
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
} as const;
export type ImageExtension = keyof typeof CONTENT_TYPES;

/** Keys are content-addressed: 32 hex characters of the SHA-256 of the bytes plus an extension. Nothing else is a
 * key, so a key can never name a path outside the storage root (no slash, no dot-dot). */
const KEY_PATTERN = /^[0-9a-f]{32}\.(svg|png|jpg|webp)$/;

export function isImageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function contentKey(bytes: Buffer | string, ext: ImageExtension): string {
  return `${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}.${ext}`;
}

export function contentTypeOf(key: string): string {
  const ext = key.slice(key.lastIndexOf('.') + 1) as ImageExtension;
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

export function assertImageKey(key: string): void {
  if (!isImageKey(key)) throw new Error(`Not an image key: ${JSON.stringify(key)}`);
}

/** Uploaded files (docs/files.md): `file-` and the full SHA-256 of the bytes, in hex. Never served under /images. */
const FILE_KEY_PATTERN = /^file-[0-9a-f]{64}$/;

export function isFileKey(key: string): boolean {
  return FILE_KEY_PATTERN.test(key);
}

export function fileKey(sha256: string): string {
  const key = `file-${sha256}`;
  if (!isFileKey(key)) throw new Error(`Not a SHA-256: ${JSON.stringify(sha256)}`);
  return key;
}

/** Any key the drivers store: an image key or a file key. */
export function isStorageKey(key: string): boolean {
  return isImageKey(key) || isFileKey(key);
}
