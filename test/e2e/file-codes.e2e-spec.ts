import { TestReceiver } from '../../src/modules/webhooks/testing/receiver';
import { ScanBuffer } from '../../src/modules/scan/scan-buffer';
import { createCode, createOrg, eventually, http, startApi, startScan, startWorker, TestApp, TestOrg } from '../setup/app';
import { image, media, pdf, streamUpload, upload } from '../setup/files';

const BROWSER = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';

/** file, audio and video codes: creation rules, the response, events and batches; the scan host's page and bytes. */
describe('file, audio and video codes', () => {
  let api: TestApp;
  let scan: TestApp;
  let worker: { close(): Promise<void> };
  let org: TestOrg;
  let rx: TestReceiver;
  const files: Record<string, { id: string; sha256: string; size: number }> = {};

  beforeAll(async () => {
    rx = await new TestReceiver().start();
    api = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    scan = await startScan();
    worker = await startWorker();
    org = await createOrg(api, { plan: 'pro' });
    expect((await http(api.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: rx.url('/files'), events: ['qr.created'] } })).status).toBe(201);
    const add = async (key: string, filename: string, body: Buffer) => (files[key] = (await streamUpload(api, org, body, 0, { filename })).body);
    await add('pdf', 'Menü "Herbst" 2026.pdf', pdf('Autumn menu'));
    await add('png', 'photo.png', await image('png'));
    await add('wav', 'tone.wav', media('tone.wav'));
    await add('webm', 'clip.webm', media('clip.webm'));
  });
  afterAll(async () => {
    await worker?.close();
    await scan?.close();
    await api?.close();
    await rx?.stop();
  });

  describe('POST /v1/qr-codes', () => {
    it('creates page-holding file, audio and video codes with a summary, and qr.created carries them', async () => {
      for (const [type, key, title] of [['file', 'pdf', 'Our menu'], ['audio', 'wav', undefined], ['video', 'webm', 'Clip']] as const) {
        const code = await createCode(api, org, { name: `${type} code`, target: { type, file_id: files[key].id, title, description: 'Have a look.' } });
        expect(code).toMatchObject({ kind: 'dynamic', type, short_url: expect.stringContaining(code.short_code) });
        const name = key === 'pdf' ? 'Menü "Herbst" 2026.pdf' : `${key === 'wav' ? 'tone' : 'clip'}.${key}`;
        expect(code.target).toEqual({
          type,
          file_id: files[key].id,
          title: title ?? null,
          description: 'Have a look.',
          editable: false,
          destination: code.short_url,
          summary: { title: title ?? name, file_name: name, content_type: { pdf: 'application/pdf', wav: 'audio/wav', webm: 'video/webm' }[key], size: files[key].size },
        });
        const event = await eventually(async () => rx.requests.find((r) => JSON.parse(r.body).data.id === code.id), 20_000, `qr.created of ${type}`);
        expect(JSON.parse(event.body).data.target).toEqual(code.target);
      }
    });

    it('refuses static, a missing or foreign file, the wrong kind of file, unknown fields, and target on PATCH', async () => {
      const bad = async (target: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        (await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target, ...extra } })).body.error;
      expect(await bad({ type: 'file', file_id: files.pdf.id }, { type: 'static' })).toMatchObject({ code: 'invalid_request', field: 'type' });
      expect(await bad({ type: 'file' })).toMatchObject({ code: 'invalid_request', field: 'target.file_id' });
      expect(await bad({ type: 'file', file_id: 'nope' })).toMatchObject({ code: 'invalid_request', field: 'target.file_id' });
      expect(await bad({ type: 'video', file_id: files.pdf.id, colour: 'red' })).toMatchObject({ code: 'invalid_request', field: 'target.colour' });
      expect(await bad({ type: 'audio', file_id: files.pdf.id })).toMatchObject({ code: 'invalid_request', field: 'target.file_id' });
      expect(await bad({ type: 'video', file_id: files.wav.id })).toMatchObject({ code: 'invalid_request', field: 'target.file_id' });
      const other = await createOrg(api, { plan: 'pro' });
      const foreign = await upload(api, other, { filename: 'x.pdf', body: pdf('foreign') });
      expect(await bad({ type: 'file', file_id: foreign.body.id })).toMatchObject({ code: 'not_found', field: 'target.file_id' });
      const free = await createOrg(api, { plan: 'free' });
      const res = await http(api.origin, 'POST', '/v1/qr-codes', { key: free.apiKey, body: { target: { type: 'file', file_id: files.pdf.id } } });
      expect(res.body.error.code).toBe('plan_restricted');
      const code = await createCode(api, org, { target: { type: 'file', file_id: files.png.id } });
      const patch = await http(api.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body: { target: { type: 'file', file_id: files.pdf.id } } });
      expect(patch.status).toBe(409);
      expect(patch.body.error.code).toBe('target_not_editable');
      expect((await http(api.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body: { name: 'Renamed' } })).body.name).toBe('Renamed');
    });

    it('PUT content swaps the file, naming the body\'s own field (file_id) when the file is missing or of the wrong kind', async () => {
      const code = await createCode(api, org, { target: { type: 'audio', file_id: files.wav.id } });
      const put = (body: Record<string, unknown>) => http(api.origin, 'PUT', `/v1/qr-codes/${code.id}/content`, { key: org.apiKey, body });
      const wrongKind = await put({ file_id: files.pdf.id });
      expect([wrongKind.status, wrongKind.body.error.field]).toEqual([400, 'file_id']);
      const missing = await put({ file_id: 'file_0000000000000000' });
      expect([missing.status, missing.body.error.field]).toEqual([404, 'file_id']);
      const swapped = await put({ file_id: files.wav.id, title: 'Tone' });
      expect([swapped.status, swapped.body.target.title, swapped.body.short_url]).toEqual([200, 'Tone', code.short_url]);
    });

    it('creates them in batches through the same rules, item by item', async () => {
      const res = await http(api.origin, 'POST', '/v1/batches', {
        key: org.apiKey,
        body: { items: [{ name: 'Menu', target: { type: 'file', file_id: files.pdf.id } }, { name: 'Gone', target: { type: 'video', file_id: 'file_0000000000000000000' } }] },
      });
      expect(res.status).toBe(202);
      const done = await eventually(async () => {
        const b = await http(api.origin, 'GET', `/v1/batches/${res.body.id}`, { key: org.apiKey });
        return b.body.status !== 'processing' ? b.body : undefined;
      }, 30_000, 'batch');
      expect(done.items[0]).toMatchObject({ status: 'completed', qr_code_id: expect.stringMatching(/^qr_/) });
      expect(done.items[1].status).toBe('failed');
      expect(done.items[1].error).toMatch(/file/);
      const code = await http(api.origin, 'GET', `/v1/qr-codes/${done.items[0].qr_code_id}`, { key: org.apiKey });
      expect(code.body.target.summary.file_name).toBe('Menü "Herbst" 2026.pdf');
    });
  });

  describe('scan host', () => {
    const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(`${scan.origin}${path}`, { method, headers, redirect: 'manual' });

    it('serves the page (a scan) and the bytes on /file (not a scan) with inert headers', async () => {
      const counted: string[] = [];
      const buffer = scan.app.get(ScanBuffer);
      const addScan = buffer.addScan.bind(buffer);
      buffer.addScan = (...scan: Parameters<ScanBuffer['addScan']>) => {
        counted.push(scan[1]); // the code's id
        addScan(...scan);
      };
      const code = await createCode(api, org, { target: { type: 'file', file_id: files.pdf.id, title: '<b>Menu</b>' } });
      const page = await get(`/${code.short_code}`, { 'user-agent': BROWSER });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('&lt;b&gt;Menu&lt;/b&gt;');
      expect(html).toContain(`data="/${code.short_code}/file" type="application/pdf"`);
      expect(html).toContain(`download="Menü &quot;Herbst&quot; 2026.pdf"`);
      expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*object-src 'self'/);

      const file = await get(`/${code.short_code}/file`, { 'user-agent': BROWSER });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/pdf');
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
      expect(file.headers.get('content-security-policy')).toBe('sandbox');
      expect(file.headers.get('accept-ranges')).toBe('bytes');
      expect(file.headers.get('content-disposition')).toBe(`inline; filename="Men? \\"Herbst\\" 2026.pdf"; filename*=UTF-8''Men%C3%BC%20%22Herbst%22%202026.pdf`);
      expect(Buffer.from(await file.arrayBuffer()).equals(pdf('Autumn menu'))).toBe(true);

      await get(`/${code.short_code}/file`, { 'user-agent': BROWSER, range: 'bytes=0-9' });
      expect(counted.filter((id) => id === code.id)).toEqual([code.id]);
    });

    it('answers byte ranges for media: 206 with Content-Range, 416 for a range past the end, HEAD and 304 without a body', async () => {
      const code = await createCode(api, org, { target: { type: 'video', file_id: files.webm.id } });
      const bytes = media('clip.webm');
      const part = await get(`/${code.short_code}/file`, { range: 'bytes=100-199' });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
      expect(part.headers.get('content-length')).toBe('100');
      expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
      const tail = await get(`/${code.short_code}/file`, { range: 'bytes=-10' });
      expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true);
      const past = await get(`/${code.short_code}/file`, { range: `bytes=${bytes.length + 5}-` });
      expect(past.status).toBe(416);
      expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
      // The error envelope, without the file's name.
      expect(past.headers.get('content-disposition')).toBeNull();
      expect(await past.json()).toMatchObject({ error: { code: 'invalid_request', message: expect.stringContaining(`${bytes.length} bytes`), request_id: past.headers.get('request-id') } });
      const garbage = await get(`/${code.short_code}/file`, { range: 'pages=1-2' });
      expect(garbage.status).toBe(200);
      const head = await get(`/${code.short_code}/file`, {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(bytes.length));
      expect(head.headers.get('content-type')).toBe('video/webm');
      const etag = head.headers.get('etag')!;
      expect((await get(`/${code.short_code}/file`, { 'if-none-match': etag })).status).toBe(304);
    });

    it('stops serving the bytes once the scan limit is reached, as the next scan of the page does', async () => {
      const code = await createCode(api, org, { target: { type: 'file', file_id: files.png.id }, max_scans: 1 });
      expect((await get(`/${code.short_code}/file`, { 'user-agent': BROWSER })).status).toBe(200);
      expect((await get(`/${code.short_code}`, { 'user-agent': BROWSER })).status).toBe(200); // the one counted scan
      expect((await get(`/${code.short_code}`, { 'user-agent': BROWSER })).status).toBe(410);
      const file = await get(`/${code.short_code}/file`, { 'user-agent': BROWSER });
      expect(file.status).toBe(410);
      expect(file.headers.get('content-type')).toMatch(/^text\/html/);
    });

    it('serves the bytes to the browser whose scan used up the limit (the scan pass of its page), and to no other', async () => {
      const code = await createCode(api, org, { target: { type: 'file', file_id: files.png.id }, max_scans: 1 });
      const page = await get(`/${code.short_code}`, { 'user-agent': BROWSER }); // the one counted scan
      expect(page.status).toBe(200);
      const pass = page.headers.get('set-cookie')!.split(';')[0];
      expect(page.headers.get('set-cookie')).toMatch(/; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
      const bytes = await get(`/${code.short_code}/file`, { 'user-agent': BROWSER, cookie: pass });
      expect(bytes.status).toBe(200);
      expect(bytes.headers.get('content-type')).toBe('image/png');
      expect((await get(`/${code.short_code}/file`, { 'user-agent': BROWSER })).status).toBe(410);
    });

    it('stops serving the bytes of an inactive (410) or trashed (404) code, and 404s other codes\' /file', async () => {
      const code = await createCode(api, org, { target: { type: 'audio', file_id: files.wav.id } });
      expect((await get(`/${code.short_code}/file`)).status).toBe(200);
      await http(api.origin, 'PATCH', `/v1/qr-codes/${code.id}`, { key: org.apiKey, body: { is_active: false } });
      await eventually(async () => (await get(`/${code.short_code}/file`)).status === 410, 10_000, 'inactive');
      await http(api.origin, 'DELETE', `/v1/qr-codes/${code.id}`, { key: org.apiKey });
      await eventually(async () => (await get(`/${code.short_code}/file`)).status === 404, 10_000, 'trashed');
      const url = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com' } });
      expect((await get(`/${url.short_code}/file`)).status).toBe(404);
      expect((await get('/zzzzzzz/file')).status).toBe(404);
      expect((await get('/short/file')).status).toBe(404);
    });
  });
});
