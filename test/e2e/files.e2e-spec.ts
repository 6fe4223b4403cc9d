import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { addKey, createCode, createOrg, db, eventually, http, startApi, TestApp, TestOrg } from '../setup/app';
import { purgeTrash } from '../../src/modules/qr-codes/qr-lifecycle';
import { image, media, pdf, streamUpload, upload, wavHeader } from '../setup/files';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** POST/GET/DELETE /v1/files: intake of every accepted type, refusals, limits, isolation, deletion rules. */
describe('uploaded files: /v1/files', () => {
  let api: TestApp;
  let org: TestOrg;
  const storageDir = () => api.config.storageDir;
  const stored = (hash: string) => existsSync(join(storageDir(), `file-${hash}`));
  const leftovers = () => (existsSync(join(storageDir(), '.incoming')) ? readdirSync(join(storageDir(), '.incoming')) : []);

  beforeAll(async () => {
    api = await startApi();
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('POST /v1/files', () => {
    const accepted: Array<[string, () => Promise<Buffer> | Buffer, string]> = [
      ['menu.pdf', () => pdf(), 'application/pdf'],
      ['photo.png', () => image('png'), 'image/png'],
      ['photo.jpg', () => image('jpeg'), 'image/jpeg'],
      ['photo.webp', () => image('webp'), 'image/webp'],
      ['anim.gif', () => image('gif'), 'image/gif'],
      ['tone.mp3', () => media('tone.mp3'), 'audio/mpeg'],
      ['tone.m4a', () => media('tone.m4a'), 'audio/mp4'],
      ['tone.aac', () => media('tone.aac'), 'audio/aac'],
      ['tone.ogg', () => media('tone.ogg'), 'audio/ogg'],
      ['tone.wav', () => media('tone.wav'), 'audio/wav'],
      ['clip.mp4', () => media('clip.mp4'), 'video/mp4'],
      ['clip.webm', () => media('clip.webm'), 'video/webm'],
    ];

    it.each(accepted)('stores %s with the type sniffed from its bytes (%#)', async (name, make, type) => {
      const bytes = await make();
      // The client's claimed type is ignored: every part says application/octet-stream.
      const res = await upload(api, org, { filename: name, body: bytes });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^file_[0-9A-Za-z]{16,}$/),
        object: 'file',
        name,
        content_type: type,
        size: bytes.length,
        sha256: sha256(bytes),
        created_at: expect.any(String),
      });
      expect(stored(sha256(bytes))).toBe(true);
      const again = await http(api.origin, 'GET', `/v1/files/${res.body.id}`, { key: org.apiKey });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
    });

    it.each([
      ['an HTML page named .pdf', 'invoice.pdf', 'application/pdf', '<!doctype html><html><script>alert(1)</script></html>'],
      ['an SVG image', 'logo.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>'],
      ['plain text named .mp3', 'song.mp3', 'audio/mpeg', 'just some words'],
      ['a ZIP archive named .png', 'pic.png', 'image/png', Buffer.from('504b0304140000000800', 'hex')],
      ['an empty file', 'empty.pdf', 'application/pdf', ''],
    ])('refuses %s (400 invalid_request on file) and keeps nothing', async (_what, filename, contentType, body) => {
      const before = await db(api).execute<{ n: string }[]>('select count(*) as n from files where organization_id = ?', [org.organizationId]);
      const res = await upload(api, org, { filename, contentType, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'file' });
      const after = await db(api).execute<{ n: string }[]>('select count(*) as n from files where organization_id = ?', [org.organizationId]);
      expect(after[0].n).toBe(before[0].n);
      expect(stored(sha256(Buffer.from(body)))).toBe(false);
      expect(leftovers()).toEqual([]);
    });

    it('refuses a body that is not multipart, a missing file part, a stray field and a second file', async () => {
      const json = await http(api.origin, 'POST', '/v1/files', { key: org.apiKey, body: { file: 'x' } });
      expect(json.status).toBe(400);
      expect(json.body.error).toMatchObject({ code: 'invalid_request', field: 'file' });
      const none = await upload(api, org, { name: 'note', body: 'hello' });
      expect(none.status).toBe(400);
      expect(none.body.error).toMatchObject({ code: 'invalid_request', field: 'note' });
      const wrongName = await upload(api, org, { name: 'document', filename: 'a.pdf', body: pdf() });
      expect(wrongName.status).toBe(400);
      expect(wrongName.body.error.field).toBe('document');
      const two = await upload(api, org, [{ filename: 'a.pdf', body: pdf('one') }, { filename: 'b.pdf', body: pdf('two') }]);
      expect(two.status).toBe(400);
      expect(two.body.error).toMatchObject({ code: 'invalid_request', field: 'file' });
      expect(stored(sha256(pdf('one')))).toBe(false);
      for (const [contentType, body] of [
        ['multipart/form-data', '--x\r\n'],
        ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 cut short'],
        ['multipart/form-data; boundary=x', 'no boundary anywhere'],
      ]) {
        const res = await fetch(`${api.origin}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': contentType }, body });
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_request', field: 'file' });
      }
      expect(leftovers()).toEqual([]);
    });

    it('keeps only the last path segment of the name, without control characters', async () => {
      const res = await streamUpload(api, org, pdf('names'), 0, { filename: '..\\..\\etc/pass\twd "menü".pdf' });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('passwd "menü".pdf');
    });

    it('streams a 25 MB upload to storage as it arrives, and refuses one byte more with 413 file_too_large', async () => {
      const size = 25 * 1024 * 1024;
      const head = wavHeader(size - 44);
      // Half-way through sending, the first half is on disk already: the server holds no more than a few chunks.
      const midway = () =>
        eventually(async () => leftovers().some((f) => statSync(join(storageDir(), '.incoming', f)).size >= size / 2 - 1024 * 1024), 20_000, 'half the upload on disk');
      const res = await streamUpload(api, org, head, size - head.length, { midway });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ content_type: 'audio/wav', size });
      expect(statSync(join(storageDir(), `file-${res.body.sha256}`)).size).toBe(size);

      const over = await streamUpload(api, org, wavHeader(size - 43), size + 1 - head.length);
      expect(over.status).toBe(413);
      expect(over.body.error).toMatchObject({ code: 'file_too_large', field: 'file' });
      expect(leftovers()).toEqual([]);
    });

    it('applies FILE_MAX_BYTES', async () => {
      const small = await startApi({ FILE_MAX_BYTES: '4096' });
      try {
        const o = await createOrg(small, { plan: 'plus' });
        expect((await upload(small, o, { filename: 'a.wav', body: media('tone.wav') })).status).toBe(413);
        expect((await upload(small, o, { filename: 'a.mp3', body: media('tone.mp3') })).status).toBe(201);
        const [row] = await db(small).execute<{ n: string }[]>('select count(*) as n from files where organization_id = ?', [o.organizationId]);
        expect(row.n).toBe('1');
      } finally {
        await small.close();
      }
    });
  });

  describe('access', () => {
    it('needs qr:write to upload and qr:read to read; the free plan has no uploads', async () => {
      const reader = await addKey(api, org.organizationId, { scopes: ['qr:read'] });
      const refused = await upload(api, reader, { filename: 'a.pdf', body: pdf() });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_scope');
      const writer = await addKey(api, org.organizationId, { scopes: ['qr:write'] });
      expect((await http(api.origin, 'GET', '/v1/files', { key: writer.apiKey })).body.error.code).toBe('insufficient_scope');
      expect((await http(api.origin, 'GET', '/v1/files', { key: reader.apiKey })).status).toBe(200);
      const free = await createOrg(api, { plan: 'free' });
      const res = await upload(api, free, { filename: 'a.pdf', body: pdf() });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'plan_restricted', plan_id: 'free' });
    });

    it('keeps workspaces and environments apart (another one\'s id is 404), and lists newest first by cursor', async () => {
      const mine = await createOrg(api, { plan: 'plus' });
      const test = await addKey(api, mine.organizationId, { environment: 'test' });
      const other = await createOrg(api, { plan: 'plus' });
      const ids: string[] = [];
      for (const n of [1, 2, 3]) ids.push((await upload(api, mine, { filename: `${n}.pdf`, body: pdf(`list ${n}`) })).body.id);
      const testFile = (await upload(api, test, { filename: 't.pdf', body: pdf('list 1') })).body.id;
      for (const [key, id] of [[other.apiKey, ids[0]], [test.apiKey, ids[0]], [mine.apiKey, testFile]]) {
        expect((await http(api.origin, 'GET', `/v1/files/${id}`, { key })).status).toBe(404);
        expect((await http(api.origin, 'DELETE', `/v1/files/${id}`, { key })).status).toBe(404);
      }
      const page1 = await http(api.origin, 'GET', '/v1/files?limit=2', { key: mine.apiKey });
      expect(page1.body.data.map((f: { id: string }) => f.id)).toEqual([ids[2], ids[1]]);
      expect(page1.body.has_more).toBe(true);
      const page2 = await http(api.origin, 'GET', `/v1/files?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { key: mine.apiKey });
      expect(page2.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
      expect(page2.body.data.map((f: { id: string }) => f.id)).toEqual([ids[0]]);
      expect((await http(api.origin, 'GET', '/v1/files', { key: test.apiKey })).body.data.map((f: { id: string }) => f.id)).toEqual([testFile]);
      expect((await http(api.origin, 'GET', '/v1/files?limit=2&cursor=nonsense', { key: mine.apiKey })).body.error.field).toBe('cursor');
      expect((await http(api.origin, 'GET', '/v1/files?sort=name', { key: mine.apiKey })).status).toBe(400);
    });
  });

  describe('DELETE /v1/files/{id}', () => {
    it('deletes an unused file and its bytes, unless another upload holds the same bytes', async () => {
      const bytes = pdf('shared bytes');
      const a = (await upload(api, org, { filename: 'a.pdf', body: bytes })).body;
      const b = (await upload(api, org, { filename: 'b.pdf', body: bytes })).body;
      expect(a.sha256).toBe(b.sha256);
      expect(await http(api.origin, 'DELETE', `/v1/files/${a.id}`, { key: org.apiKey })).toMatchObject({ status: 200, body: { id: a.id, object: 'file', deleted: true } });
      expect(stored(a.sha256)).toBe(true);
      expect((await http(api.origin, 'GET', `/v1/files/${a.id}`, { key: org.apiKey })).status).toBe(404);
      expect((await http(api.origin, 'DELETE', `/v1/files/${b.id}`, { key: org.apiKey })).status).toBe(200);
      expect(stored(a.sha256)).toBe(false);
    });

    it('refuses with 409 file_in_use while a live or trashed code uses the file; a permanently deleted code lets it go', async () => {
      const file = (await upload(api, org, { filename: 'menu.pdf', body: pdf('in use') })).body;
      const code = await createCode(api, org, { target: { type: 'file', file_id: file.id } });
      const del = () => http(api.origin, 'DELETE', `/v1/files/${file.id}`, { key: org.apiKey });
      const live = await del();
      expect(live.status).toBe(409);
      expect(live.body.error.code).toBe('file_in_use');
      expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${code.id}`, { key: org.apiKey })).status).toBe(200);
      expect((await del()).body.error.code).toBe('file_in_use');
      // Emptying the Trash removes the code for good; the file stays until it is deleted through the API.
      expect(await purgeTrash(db(api), { organizationId: org.organizationId })).toMatchObject({ deleted: 1 });
      expect((await http(api.origin, 'GET', `/v1/files/${file.id}`, { key: org.apiKey })).status).toBe(200);
      expect(stored(file.sha256)).toBe(true);
      expect((await del()).status).toBe(200);
      expect(stored(file.sha256)).toBe(false);
    });
  });
});
