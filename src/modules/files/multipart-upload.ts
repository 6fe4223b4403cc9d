import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiException } from '../../common/errors/api.exception';
import { cleanFileName } from './file-types';
import { type Intake, takeIn, TooLargeError } from './file-intake';

export interface Upload {
  intake: Intake;
  name: string;
}

/** Adds multipart/form-data parsing to the api's Fastify instance. Nothing is parsed until a route asks for the parts
 * (only POST /v1/files does), and then only as a stream: no part is buffered or written to disk by the plugin. */
export async function registerMultipart(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyMultipart, { limits: { parts: 10, fieldSize: 1024, headerPairs: 100 } });
}

const USAGE = 'Send multipart/form-data with exactly one part: the file, named `file`';

export function tooLarge(maxBytes: number): ApiException {
  return new ApiException('file_too_large', `The file is larger than the limit of ${maxBytes} bytes`, { field: 'file' });
}

const drain = (stream: Readable): Promise<void> =>
  new Promise((resolve) => {
    stream.on('end', resolve).on('error', () => resolve()).on('close', resolve);
    stream.resume();
  });

/**
 * Reads the one `file` part of a multipart request (@fastify/multipart, busboy underneath) into a temporary file under
 * `dir`, streamed. Any other part, a second file, a malformed body or a missing file is a 400 on `file` (or on the
 * stray field); more than `maxBytes` is a 413. Whatever was written is removed when the request is refused.
 */
export async function readUpload(req: FastifyRequest, opts: { maxBytes: number; dir: string }): Promise<Upload> {
  if (!req.isMultipart()) throw ApiException.invalid('file', USAGE);
  let upload: Upload | undefined;
  try {
    for await (const part of req.parts({ limits: { fileSize: opts.maxBytes, parts: 10, fieldSize: 1024 } })) {
      if (part.type !== 'file' || part.fieldname !== 'file' || upload) {
        if (part.type === 'file') await drain(part.file);
        const field = part.fieldname === 'file' || !part.fieldname ? 'file' : part.fieldname;
        throw ApiException.invalid(field, upload && part.fieldname === 'file' ? 'Send one file per request' : `Unknown field '${field}': ${USAGE}`);
      }
      const file = part.file;
      upload = { intake: await takeIn(file, opts.dir, () => file.truncated), name: cleanFileName(part.filename) };
    }
  } catch (err) {
    if (upload) await rm(upload.intake.path, { force: true });
    if (err instanceof ApiException) throw err;
    if (err instanceof TooLargeError || (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(opts.maxBytes);
    if (typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('FST_')) {
      throw ApiException.invalid('file', `${USAGE} (${(err as Error).message})`);
    }
    // busboy's own parse errors (malformed part headers, a body that ends early) are the client's too.
    if (err instanceof Error && !('errno' in err) && /multipart|part|form|boundary/i.test(err.message)) {
      throw ApiException.invalid('file', `${USAGE} (${err.message})`);
    }
    throw err;
  }
  if (!upload) throw ApiException.invalid('file', `file is required: ${USAGE}`);
  return upload;
}
