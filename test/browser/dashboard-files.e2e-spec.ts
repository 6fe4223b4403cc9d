import { createHash } from 'node:crypto';
import { eventually, http, writePlans } from '../setup/app';
import { pdf } from '../setup/files';
import { atBothWidths, DESKTOP, expectNoSeriousA11yViolations, freshOwner, useDashboardStack, type Owner, type WatchedPage } from '../setup/browser';

jest.setTimeout(300_000);

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * The file picker of file/audio/video codes: upload (POST /v1/files) or choose an uploaded file (GET /v1/files), the
 * API's refusals at the field (400 type, 413 size, 403 quota), and the code it makes served by the scan host.
 * The plan allows 2 files and the api 20,000 bytes a file, so both limits are reached with small files.
 */
describe('dashboard: uploading a file for a file code', () => {
  const stack = useDashboardStack(33, { env: () => ({ FILE_MAX_BYTES: '20000', PLANS_FILE: writePlans({ pro: { files: 2, requests_per_minute: 100_000 } }) }) });
  let owner: Owner;
  let watched: WatchedPage;
  // Stored files are content-addressed (`file-<sha256>`) and every test file shares one database, while this stack
  // keeps its bytes in a storage directory of its own: bytes no other test file uploads, so that an upload elsewhere
  // never finds these already recorded and skips storing them in its own directory.
  const menu = pdf('Autumn menu (dashboard files test)');
  const winter = pdf('Winter menu (dashboard files test)');

  beforeAll(async () => {
    owner = await freshOwner(stack);
    watched = await stack.signedIn(owner);
  });

  const picker = () => watched.page.getByRole('group', { name: 'File (required)' });
  const errorOf = async (control: ReturnType<WatchedPage['page']['getByLabel']>) => {
    const ids = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
    const texts = await Promise.all(ids.map((id) => watched.page.locator(`[id="${id}"]`).textContent()));
    return texts.join(' ');
  };

  it('refuses a file of the wrong type and one too large at the field, uploads a PDF, creates the code, and the scan host serves it', async () => {
    const { page, violations } = watched;
    await page.goto(`${stack.appUrl}/codes/new`);
    await page.getByLabel('Type').selectOption('file');
    await picker().waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `file picker at ${w} px`));
    await page.setViewportSize(DESKTOP);
    const upload = picker().getByLabel('Upload a file');

    // An HTML page named .pdf: the API sniffs the bytes and refuses it (400 on `file`), shown at the upload control.
    await upload.setInputFiles({ name: 'invoice.pdf', mimeType: 'application/pdf', buffer: Buffer.from('<!doctype html><html><script>alert(1)</script></html>') });
    await picker().locator('.field-error').waitFor();
    expect(await upload.getAttribute('aria-invalid')).toBe('true');
    expect(await errorOf(upload)).toMatch(/PDF|type|accepted/i);

    // Over FILE_MAX_BYTES: 413 file_too_large, with what to do.
    await upload.setInputFiles({ name: 'huge.pdf', mimeType: 'application/pdf', buffer: Buffer.concat([pdf('Huge (dashboard files test)'), Buffer.alloc(30_000, 32)]) });
    await picker().locator('.field-error').filter({ hasText: 'Choose a smaller file' }).waitFor();
    expect(await errorOf(upload)).toMatch(/smaller file/);
    const listed = await http(stack.api.origin, 'GET', '/v1/files', { key: owner.org.apiKey });
    expect(listed.body.data).toEqual([]);

    // A real PDF: uploaded, chosen, and described by name, size and type.
    await upload.setInputFiles({ name: 'menu.pdf', mimeType: 'application/pdf', buffer: menu });
    await picker().getByText('Uploaded menu.pdf').waitFor();
    expect(await picker().locator('.field-error').count()).toBe(0);
    await expect(picker().locator('.file-picker-selected').textContent()).resolves.toMatch(/menu\.pdf · \d+(\.\d)? (B|kB) · application\/pdf/);
    const choose = picker().getByLabel('Or choose an uploaded file');
    expect(await choose.locator('option:checked').textContent()).toMatch(/^menu\.pdf \(/);
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `file picker with a file at ${w} px`));
    await page.setViewportSize(DESKTOP);

    await page.getByLabel('Name', { exact: true }).fill('Autumn menu');
    await page.getByLabel('Title').fill('Our autumn menu');
    await page.getByRole('button', { name: 'Create the code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Autumn menu' }).waitFor();

    const codes = await http(stack.api.origin, 'GET', '/v1/qr-codes?search=Autumn', { key: owner.org.apiKey });
    const code = codes.body.data.find((c: { name: string }) => c.name === 'Autumn menu');
    const files = await http(stack.api.origin, 'GET', '/v1/files', { key: owner.org.apiKey });
    expect(files.body.data).toHaveLength(1);
    expect(files.body.data[0]).toMatchObject({ name: 'menu.pdf', content_type: 'application/pdf', size: menu.length, sha256: sha256(menu) });
    expect(code).toMatchObject({ type: 'file', target: expect.objectContaining({ file_id: files.body.data[0].id, title: 'Our autumn menu' }) });

    // Scanned: the hosted page shows the file, and /{short_code}/file serves its bytes.
    const scanned = await fetch(`${stack.scan.origin}/${code.short_code}`, { headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' } });
    expect(scanned.status).toBe(200);
    const html = await scanned.text();
    expect(html).toContain('Our autumn menu');
    expect(html).toContain('menu.pdf');
    const bytes = await fetch(`${stack.scan.origin}/${code.short_code}/file`);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await bytes.arrayBuffer()).equals(menu)).toBe(true);
    expect(violations).toEqual([]);
  });

  it('re-points the code to another uploaded file in its Content tab, and shows the quota refusal at the field', async () => {
    const { page, violations } = watched;
    const codes = await http(stack.api.origin, 'GET', '/v1/qr-codes?search=Autumn', { key: owner.org.apiKey });
    const code = codes.body.data.find((c: { name: string }) => c.name === 'Autumn menu');
    await page.goto(`${stack.appUrl}/codes/${code.id}`);
    await page.getByRole('tab', { name: 'Content' }).click();
    const group = page.getByRole('group', { name: 'File' });
    // The code's file is shown by name.
    await group.locator('.file-picker-selected').filter({ hasText: 'menu.pdf' }).waitFor();

    // A second file (the plan's last room), uploaded here: it becomes the choice.
    await group.getByLabel('Upload a file').setInputFiles({ name: 'winter.pdf', mimeType: 'application/pdf', buffer: winter });
    await group.getByText('Uploaded winter.pdf').waitFor();
    // A third one is over the plan's 2 files: 403 plan_limit_reached, explained at the field; nothing stored.
    await group.getByLabel('Upload a file').setInputFiles({ name: 'spring.pdf', mimeType: 'application/pdf', buffer: pdf('Spring menu (dashboard files test)') });
    await group.locator('.field-error').filter({ hasText: 'Delete files no code uses' }).waitFor();
    expect(await group.getByLabel('Upload a file').getAttribute('aria-invalid')).toBe('true');
    expect((await http(stack.api.origin, 'GET', '/v1/files', { key: owner.org.apiKey })).body.data).toHaveLength(2);
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `content tab with the file picker at ${w} px`));
    await page.setViewportSize(DESKTOP);

    // Unsaved, the upload changed nothing: after a reload the code's file is menu.pdf again. Choose winter.pdf among
    // the uploaded files (newest first) and save.
    await page.reload();
    await page.getByRole('tab', { name: 'Content' }).click();
    await group.locator('.file-picker-selected').filter({ hasText: 'menu.pdf' }).waitFor();
    const choose = group.getByLabel('Or choose an uploaded file');
    await eventually(async () => (await choose.locator('option').count()) === 3, 10_000, 'the uploaded files listed');
    expect(await choose.locator('option').allTextContents()).toEqual(['— choose a file —', expect.stringMatching(/^winter\.pdf \(/), expect.stringMatching(/^menu\.pdf \(/)]);
    await choose.selectOption({ label: (await choose.locator('option').nth(1).textContent())! });
    await group.locator('.file-picker-selected').filter({ hasText: 'winter.pdf' }).waitFor();
    await page.getByRole('button', { name: 'Save content' }).click();
    await page.getByText('Content saved').waitFor();
    const after = await http(stack.api.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: owner.org.apiKey });
    const winterFile = (await http(stack.api.origin, 'GET', '/v1/files', { key: owner.org.apiKey })).body.data.find((f: { name: string }) => f.name === 'winter.pdf');
    expect(after.body.target.file_id).toBe(winterFile.id);
    // The scan host drops its copy of the code on the change and serves the new file.
    await eventually(async () => Buffer.from(await (await fetch(`${stack.scan.origin}/${code.short_code}/file`)).arrayBuffer()).equals(winter), 10_000, 'the new file served');
    expect(violations).toEqual([]);
  });
});
