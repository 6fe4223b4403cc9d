import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { assertMatchesOpenApi } from './openapi-check';
import type { HttpResult, TestApp, TestOrg } from './app';

const MEDIA = join(__dirname, '..', 'fixtures', 'media');

/** A shipped media fixture (test/fixtures/media/README.md). */
export const media = (name: string): Buffer => readFileSync(join(MEDIA, name));

/** A minimal valid one-page PDF showing `text` (cross-reference offsets computed, so viewers open it without repair). */
export function pdf(text = 'Hello from Scanlink'): Buffer {
  const stream = `BT /F1 24 Tf 40 100 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A 16×16 image in `format`. */
export function image(format: 'png' | 'jpeg' | 'webp' | 'gif'): Promise<Buffer> {
  return sharp({ create: { width: 16, height: 16, channels: 3, background: '#0b57d0' } })
    .toFormat(format)
    .toBuffer();
}

/** A WAV header announcing `dataBytes` of 8-bit mono PCM at 8 kHz (the samples follow it). */
export function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(8000, 28);
  h.writeUInt16LE(1, 32);
  h.writeUInt16LE(8, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

export interface UploadPart {
  name?: string;
  filename?: string;
  contentType?: string;
  body: Buffer | string;
}

/** POST /v1/files with these multipart parts (default: one `file` part), through fetch's FormData. */
export async function upload(api: TestApp, org: TestOrg | string, parts: UploadPart[] | UploadPart, headers: Record<string, string> = {}): Promise<HttpResult> {
  const form = new FormData();
  for (const p of Array.isArray(parts) ? parts : [parts]) {
    if (p.filename === undefined && p.name !== undefined && p.name !== 'file') form.append(p.name, String(p.body));
    else form.append(p.name ?? 'file', new Blob([p.body], { type: p.contentType ?? 'application/octet-stream' }), p.filename ?? 'upload.bin');
  }
  const key = typeof org === 'string' ? org : org.apiKey;
  const res = await fetch(`${api.origin}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body: form });
  const text = await res.text();
  const body = (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
  if (typeof body === 'object') await assertMatchesOpenApi(api.origin, 'POST', '/v1/files', res.status, body);
  return { status: res.status, headers: res.headers, body, text };
}

/**
 * POST /v1/files with a body generated on the fly: a `head`, then `fill` bytes of zeros, sent in 64 KB chunks through
 * node:http, so neither side of the test holds the file (what a large streamed upload looks like to the server).
 * `midway` runs once half of the fill is sent, before the rest is.
 */
export function streamUpload(
  api: TestApp,
  org: TestOrg,
  head: Buffer,
  fill: number,
  opts: { filename?: string; midway?: () => Promise<unknown> } = {},
): Promise<{ status: number; body: any }> {
  const boundary = `----scanlink${Date.now()}`;
  // RFC 5987 form of the name, so any character (quotes included) arrives as typed.
  const name = `filename*=UTF-8''${encodeURIComponent(opts.filename ?? 'large.wav')}`;
  const pre = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; ${name}\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const post = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(64 * 1024);
  async function* body() {
    yield pre;
    yield head;
    let left = fill;
    let paused = !opts.midway;
    while (left > 0) {
      if (!paused && left <= fill / 2) {
        paused = true;
        await opts.midway!();
      }
      const n = Math.min(left, chunk.length);
      yield n === chunk.length ? chunk : chunk.subarray(0, n);
      left -= n;
    }
    yield post;
  }
  const url = new URL(`${api.origin}/v1/files`);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(pre.length + head.length + fill + post.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text.startsWith('{') ? JSON.parse(text) : text });
        });
      },
    );
    req.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    Readable.from(body()).pipe(req);
  });
}
