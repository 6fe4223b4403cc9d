import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { planRange } from './file-delivery.service';
import { takeIn, TooLargeError } from './file-intake';
import { allowedType, cleanFileName, kindOf, servedFileName } from './file-types';

describe('accepted upload types', () => {
  it('maps what file-type sniffs to the stored Content-Type, and refuses everything else', () => {
    expect(allowedType('pdf')).toEqual({ contentType: 'application/pdf', kind: 'document' });
    expect(allowedType('m4a')?.contentType).toBe('audio/mp4');
    expect(allowedType('opus')?.contentType).toBe('audio/ogg');
    for (const refused of ['html', 'svg', 'xml', 'zip', 'exe', 'mov', 'mkv', 'toString', '__proto__', undefined]) expect(allowedType(refused)).toBeNull();
    expect(kindOf('image/webp')).toBe('image');
    expect(kindOf('video/webm')).toBe('video');
    expect(kindOf('application/pdf')).toBe('document');
  });

  it('cleans names: last path segment, no control characters, at most 255 characters', () => {
    expect(cleanFileName('C:\\Users\\me\\menu.pdf')).toBe('menu.pdf');
    expect(cleanFileName('../../etc/passwd')).toBe('passwd');
    expect(cleanFileName('a\u0000b\u001bc\u0085.pdf')).toBe('abc.pdf');
    expect(cleanFileName('')).toBe('file');
    expect(cleanFileName(undefined)).toBe('file');
    expect(Array.from(cleanFileName('😀'.repeat(300)))).toHaveLength(255);
  });
});

describe('takeIn', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'scanlink-intake-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the stream to a file, hashing and sniffing it', async () => {
    const bytes = Buffer.from('%PDF-1.4\n%%EOF\n');
    const intake = await takeIn(Readable.from([bytes.subarray(0, 4), bytes.subarray(4)]), dir, () => false);
    expect(intake).toMatchObject({ size: bytes.length, type: { contentType: 'application/pdf' } });
    expect(intake.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readdirSync(dir)).toHaveLength(1);
  });

  it('leaves nothing behind when the stream was cut at the size limit or failed', async () => {
    await expect(takeIn(Readable.from([Buffer.from('%PDF-1.4')]), dir, () => true)).rejects.toBeInstanceOf(TooLargeError);
    const failing = new Readable({ read() { this.destroy(new Error('client went away')); } });
    await expect(takeIn(failing, dir, () => false)).rejects.toThrow('client went away');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('reports an unknown type as null (the caller refuses it)', async () => {
    expect((await takeIn(Readable.from([Buffer.from('<!doctype html><p>hi')]), dir, () => false)).type).toBeNull();
  });
});

describe('planRange', () => {
  const etag = '"abc"';
  it('answers one range with 206, several or malformed ones whole, and unsatisfiable ones with 416', () => {
    expect(planRange(1000, undefined, undefined, etag)).toEqual({ status: 200 });
    expect(planRange(1000, 'bytes=0-99', undefined, etag)).toEqual({ status: 206, range: { start: 0, end: 99 } });
    expect(planRange(1000, 'bytes=900-', undefined, etag)).toEqual({ status: 206, range: { start: 900, end: 999 } });
    expect(planRange(1000, 'bytes=-100', undefined, etag)).toEqual({ status: 206, range: { start: 900, end: 999 } });
    expect(planRange(1000, 'bytes=990-2000', undefined, etag)).toEqual({ status: 206, range: { start: 990, end: 999 } });
    expect(planRange(1000, 'bytes=0-9,500-509', undefined, etag)).toEqual({ status: 200 });
    expect(planRange(1000, 'bytes=0-9,5-20', undefined, etag)).toEqual({ status: 206, range: { start: 0, end: 20 } });
    expect(planRange(1000, 'bytes=1000-', undefined, etag)).toEqual({ status: 416 });
    expect(planRange(1000, 'pages=1', undefined, etag)).toEqual({ status: 200 });
    expect(planRange(1000, 'bytes=abc', undefined, etag)).toEqual({ status: 200 });
    // last < first makes the header invalid: ignored (RFC 9110), not 416.
    expect(planRange(1000, 'bytes=9-3', undefined, etag)).toEqual({ status: 200 });
    expect(planRange(1000, 'bytes=0-9,9-3', undefined, etag)).toEqual({ status: 200 });
    expect(planRange(1000, 'bytes=0-9', '"old"', etag)).toEqual({ status: 200 });
    expect(planRange(1000, 'bytes=0-9', etag, etag)).toEqual({ status: 206, range: { start: 0, end: 9 } });
  });
});

describe('servedFileName', () => {
  it('always ends in an extension of the stored type, and drops bidirectional controls', () => {
    expect(servedFileName('invoice.html', 'application/pdf')).toBe('invoice.html.pdf');
    expect(servedFileName('invoice\u202egnp.hta', 'image/png')).toBe('invoicegnp.hta.png');
    expect(servedFileName('a\u2066b\u2069\u200f.pdf', 'application/pdf')).toBe('ab.pdf');
    expect(servedFileName('Menu.PDF', 'application/pdf')).toBe('Menu.PDF');
    expect(servedFileName('photo.jpeg', 'image/jpeg')).toBe('photo.jpeg');
    expect(servedFileName('song.m4a', 'audio/mp4')).toBe('song.m4a');
    expect(servedFileName('clip', 'video/webm')).toBe('clip.webm');
    expect(servedFileName('.pdf', 'application/pdf')).toBe('file.pdf');
    expect(servedFileName('.PDF', 'application/pdf')).toBe('file.PDF');
    expect(servedFileName('\u202e', 'application/pdf')).toBe('file.pdf');
    expect(cleanFileName('x\u202eyz.pdf')).toBe('xyz.pdf');
  });
});
