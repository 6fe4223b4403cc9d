import { parse as parseDisposition } from 'content-disposition';
import { createCode, createOrg, http, startApi, startScan, TestApp, TestOrg } from '../setup/app';
import { image, pdf, upload } from '../setup/files';

/** Served file names (docs/files.md "Serving the bytes"; issue 25 item 2): no bidirectional controls, and always the
 * extension of the sniffed type, in Content-Disposition and in the page's download button. */
describe('served file names', () => {
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    [api, scan] = await Promise.all([startApi(), startScan()]);
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await Promise.all([scan?.close(), api?.close()]);
  });

  async function served(filename: string, bytes: Buffer, type: string) {
    const file = await upload(api, org, { filename, body: bytes });
    expect(file.status).toBe(201);
    const code = await createCode(api, org, { target: { type, file_id: file.body.id } });
    const page = await http(scan.origin, 'GET', `/${code.short_code}`, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' } });
    expect(page.status).toBe(200);
    const bytesRes = await fetch(`${scan.origin}/${code.short_code}/file`);
    expect(bytesRes.status).toBe(200);
    await bytesRes.arrayBuffer();
    const disposition = parseDisposition(bytesRes.headers.get('content-disposition') ?? '');
    expect(disposition.type).toBe('inline');
    return { file: file.body, page: page.text, disposition: disposition.parameters.filename };
  }

  it('a PDF/HTML polyglot uploaded as invoice.html is offered as invoice.html.pdf', async () => {
    const polyglot = Buffer.concat([pdf(`polyglot ${Date.now()}`), Buffer.from('<html><script>alert(1)</script></html>')]);
    const { file, page, disposition } = await served('invoice.html', polyglot, 'file');
    expect(file.content_type).toBe('application/pdf');
    expect(disposition).toBe('invoice.html.pdf');
    expect(page).toContain('download="invoice.html.pdf"');
    expect(page).not.toContain('download="invoice.html"');
  });

  it('a name with U+202E (right-to-left override) is stored and served without it, with the real extension', async () => {
    const { file, page, disposition } = await served('invoice\u202Egnp.hta', await image('png'), 'file');
    expect(file.name).toBe('invoicegnp.hta');
    expect(disposition).toBe('invoicegnp.hta.png');
    expect(page).toContain('download="invoicegnp.hta.png"');
    expect(page).not.toContain('\u202E');
  });

  it('keeps a name that already carries an extension of its type (any case)', async () => {
    expect((await served('Menu.PDF', pdf(`menu ${Date.now()}`), 'file')).disposition).toBe('Menu.PDF');
    expect((await served('photo.jpeg', await image('jpeg'), 'file')).disposition).toBe('photo.jpeg');
  });

  it('ignores an invalid Range (last position below the first): 200 with the whole file, never 416', async () => {
    const bytes = pdf(`range ${Date.now()}`);
    const file = await upload(api, org, { filename: 'r.pdf', body: bytes });
    const code = await createCode(api, org, { target: { type: 'file', file_id: file.body.id } });
    for (const range of ['bytes=9-3', 'bytes=0-1,9-3']) {
      const res = await fetch(`${scan.origin}/${code.short_code}/file`, { headers: { range } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
      expect(res.headers.get('content-range')).toBeNull();
    }
  });
});
