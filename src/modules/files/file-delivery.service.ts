import { docUrl } from '../../common/errors/error-codes';
import { Readable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { create as contentDisposition } from 'content-disposition';
import { servedFileName } from './file-types';
import type { FastifyReply, FastifyRequest } from 'fastify';
import parseRange from 'range-parser';
import { fileKey, IMAGE_STORAGE, type ByteRange, type ImageStorage } from '../images/storage/image-storage';

/** What a file code serves on `/{short_code}/file`: the stored bytes and how to describe them. */
export interface ServedFile {
  sha256: string;
  name: string;
  /** Sniffed at upload. */
  contentType: string;
  size: number;
}

/** The file response's CSP: even if a browser rendered the bytes as a document, they would run in a unique origin
 * with no script, no forms, no plugins' access to the scan host. */
export const FILE_CSP = 'sandbox';

/** True when any `first-last` range-spec of a `bytes=` header has last < first. */
function invalidSpec(range: string): boolean {
  if (!range.startsWith('bytes=')) return false;
  return range
    .slice(6)
    .split(',')
    .some((spec) => {
      const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(spec);
      return m !== null && Number(m[2]) < Number(m[1]);
    });
}

type Plan = { status: 200; range?: undefined } | { status: 206; range: ByteRange } | { status: 416; range?: undefined };

/** Which part of a file of `size` bytes answers `Range` (RFC 9110): one satisfiable range → 206; several are answered
 * whole (200, allowed by the RFC: no multipart/byteranges); an unsatisfiable one → 416; a malformed or invalid header
 * (`bytes=9-3`) is ignored.
 * An `If-Range` that does not match the ETag asks for the whole file. */
export function planRange(size: number, range: string | undefined, ifRange: string | undefined, etag: string): Plan {
  if (!range || (ifRange !== undefined && ifRange !== etag)) return { status: 200 };
  // A range whose last position is below its first (`bytes=9-3`) is invalid, not unsatisfiable: RFC 9110 §14.1.1
  // says to ignore the whole header (range-parser would call it unsatisfiable).
  if (/(?:^bytes=|,)\s*(\d+)\s*-\s*(\d+)/.test(range) && invalidSpec(range)) return { status: 200 };
  const ranges = parseRange(size, range, { combine: true });
  if (ranges === -1) return { status: 416 };
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return { status: 200 };
  return { status: 206, range: { start: ranges[0].start, end: ranges[0].end } };
}

/** Streams stored files with the headers that keep them inert (docs/files.md "Serving the bytes"). */
@Injectable()
export class FileDeliveryService {
  constructor(@Inject(IMAGE_STORAGE) private readonly storage: ImageStorage) {}

  /** Answers the request with the file (200, 206, 304 or 416); false when its bytes are missing from storage (nothing
   * written: the caller answers 404). */
  async send(req: FastifyRequest, reply: FastifyReply, file: ServedFile): Promise<boolean> {
    const etag = `"${file.sha256}"`;
    void reply
      .header('Content-Type', file.contentType)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Disposition', contentDisposition(servedFileName(file.name, file.contentType), { type: 'inline' }))
      .header('Content-Security-Policy', FILE_CSP)
      .header('Referrer-Policy', 'strict-origin-when-cross-origin')
      .header('Accept-Ranges', 'bytes')
      .header('ETag', etag)
      // The code may be switched off or trashed: every use asks again (a matching ETag costs a 304).
      .header('Cache-Control', 'private, no-cache');
    if (req.headers['if-none-match'] === etag) {
      void reply.status(304).send();
      return true;
    }
    const ifRange = req.headers['if-range'];
    const plan = planRange(file.size, req.headers.range, typeof ifRange === 'string' ? ifRange : undefined, etag);
    if (plan.status === 416) {
      // In the error envelope, as every error answer; not the file's, so without its name, type or validator.
      for (const h of ['Content-Disposition', 'ETag', 'Content-Security-Policy']) void reply.removeHeader(h);
      const error = { code: 'invalid_request', message: `The requested range is not satisfiable: the file has ${file.size} bytes`, doc_url: docUrl('invalid_request'), request_id: String(req.id) };
      void reply.status(416).header('Content-Range', `bytes */${file.size}`).header('Content-Type', 'application/json; charset=utf-8').header('Cache-Control', 'no-store').send({ error });
      return true;
    }
    const length = plan.range ? plan.range.end - plan.range.start + 1 : file.size;
    if (plan.range) void reply.header('Content-Range', `bytes ${plan.range.start}-${plan.range.end}/${file.size}`);
    if (req.method === 'HEAD') {
      // An empty stream: Fastify's HEAD handling keeps the Content-Length given here (it sets 0 for no payload).
      void reply.status(plan.status).header('Content-Length', String(length)).send(Readable.from([]));
      return true;
    }
    const stream = await this.storage.read(fileKey(file.sha256), plan.range);
    if (!stream) {
      for (const h of ['Content-Type', 'Content-Disposition', 'Content-Range', 'ETag', 'Accept-Ranges']) void reply.removeHeader(h);
      return false;
    }
    void reply.status(plan.status).header('Content-Length', String(length)).send(stream);
    return true;
  }
}
