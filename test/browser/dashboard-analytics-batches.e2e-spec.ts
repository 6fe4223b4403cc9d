import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { eventually, http } from '../setup/app';
import {
  atBothWidths,
  expectNoSeriousA11yViolations,
  freshOwner,
  type Owner,
  useDashboardStack,
} from '../setup/browser';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** Names and first bytes of the entries of a ZIP (its central directory; PNGs are stored, not deflated). */
function zipEntries(zip: Buffer): Array<{ name: string; head: Buffer }> {
  const out: Array<{ name: string; head: Buffer }> = [];
  for (let i = zip.length - 22; i >= 0; i--) {
    if (zip.readUInt32LE(i) !== 0x06054b50) continue;
    let p = zip.readUInt32LE(i + 16);
    const count = zip.readUInt16LE(i + 10);
    for (let n = 0; n < count; n++) {
      const nameLength = zip.readUInt16LE(p + 28);
      const extra = zip.readUInt16LE(p + 30);
      const comment = zip.readUInt16LE(p + 32);
      const offset = zip.readUInt32LE(p + 42);
      const name = zip.subarray(p + 46, p + 46 + nameLength).toString('utf8');
      const start = offset + 30 + zip.readUInt16LE(offset + 26) + zip.readUInt16LE(offset + 28);
      out.push({ name, head: zip.subarray(start, start + 8) });
      p += 46 + nameLength + extra + comment;
    }
    break;
  }
  return out;
}

/** Clicks Export CSV and answers the qr_code_id of each scan in the downloaded file. */
async function exportedCodes(page: Page): Promise<string[]> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
  const [header, ...rows] = readFileSync((await download.path())!, 'utf8').trim().split('\r\n');
  const column = header.split(',').indexOf('qr_code_id');
  expect(column).toBeGreaterThanOrEqual(0);
  return rows.map((r) => r.split(',')[column]);
}

jest.setTimeout(300_000);

describe('dashboard: analytics and batches', () => {
  const stack = useDashboardStack(24);
  let owner: Owner;

  beforeAll(async () => {
    owner = await freshOwner(stack);
  });

  it('shows a real scan of a code in the live feed and in the chart, by keyboard, with no serious axe violation', async () => {
    const created = await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: owner.org.apiKey, body: { name: 'Poster', target: { type: 'url', destination: 'https://example.com/poster' } } });
    expect(created.status).toBe(201);
    const code = created.body as { id: string; short_url: string };

    const watched = await stack.signedIn(owner);
    const { page } = watched;
    await page.goto(`${stack.appUrl}/codes/${code.id}`);
    // The Analytics tab, reached by keyboard.
    const tab = page.getByRole('tab', { name: 'Analytics' });
    await tab.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Scans over time' }).waitFor();
    await page.getByText('Connected: new scans appear here').waitFor({ timeout: 20_000 });
    expect(await page.getByRole('list', { name: 'Totals' }).innerText()).toMatch(/^0\s+scans/m);

    const scan = await fetch(code.short_url, { redirect: 'manual', headers: { 'user-agent': IPHONE, 'accept-language': 'fr-FR,fr;q=0.9' } });
    expect(scan.status).toBe(302);
    expect(scan.headers.get('location')).toBe('https://example.com/poster');

    // The live feed names the code's scan; the totals and the series table (the chart's text alternative) count it.
    const feed = page.getByRole('list', { name: 'Latest scans' });
    await feed.getByText(code.id).waitFor({ timeout: 20_000 });
    expect(await feed.innerText()).toContain('iOS');
    await eventually(async () => /^1\s+scans/m.test(await page.getByRole('list', { name: 'Totals' }).innerText()) || undefined, 20_000, 'the totals to show the scan');
    expect(await page.locator('.chart-box svg path.recharts-curve').count()).toBe(2);
    await page.getByText('The series as a table').click();
    const seriesTable = page.getByRole('table', { name: 'Scans per interval' });
    const todayRow = seriesTable.getByRole('row').filter({ hasText: new Date().toISOString().slice(0, 8) }).filter({ has: page.getByRole('cell', { name: '1', exact: true }) });
    await todayRow.first().waitFor();
    expect(await page.getByRole('table', { name: 'Devices' }).innerText()).toContain('Mobile');
    // The heat map has the scan in one of its 168 hours.
    expect(await page.locator('.heat td.h4').count()).toBe(1);

    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `code analytics at ${w} px`));

    // The CSV export holds the scan.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toContain('qr_code_id');
    expect(csv).toContain(code.id);

    expect(watched.violations).toEqual([]);
    watched.violations.length = 0;

    // The workspace analytics screen counts it too.
    await page.goto(`${stack.appUrl}/analytics`);
    await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
    await page.getByRole('table', { name: 'Codes' }).getByText('Poster').waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `workspace analytics at ${w} px`));
    expect(watched.violations).toEqual([]);
  });

  it("workspace analytics starts in the browser's time zone, UTC included, and shows the zone it asks for", async () => {
    for (const zone of ['UTC', 'Asia/Tokyo']) {
      const { page, violations } = await stack.signedIn(owner, undefined, { timezoneId: zone });
      const asked: string[] = [];
      page.on('request', (r) => r.url().includes('/v1/analytics?') && asked.push(new URL(r.url()).searchParams.get('timezone') ?? ''));
      await page.goto(`${stack.appUrl}/analytics`);
      await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
      await eventually(async () => (asked.length > 0 ? true : undefined), 10_000, 'an analytics request');
      expect({ zone, shown: await page.getByLabel('Time zone').inputValue(), asked: asked[0] }).toEqual({ zone, shown: zone, asked: zone });
      expect(violations).toEqual([]);
    }
  });

  it('workspace analytics: filters by tag and by a clicked device, and drills down into a code', async () => {
    const who = await freshOwner(stack);
    const make = async (name: string, tags: string[]) => {
      const res = await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: who.org.apiKey, body: { name, tags, target: { type: 'url', destination: `https://example.com/${name}` } } });
      expect(res.status).toBe(201);
      return res.body as { id: string; short_url: string };
    };
    const flyer = await make('Flyer', ['print']);
    const banner = await make('Banner', []);
    const DESKTOP_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
    expect((await fetch(flyer.short_url, { redirect: 'manual', headers: { 'user-agent': IPHONE } })).status).toBe(302);
    expect((await fetch(banner.short_url, { redirect: 'manual', headers: { 'user-agent': DESKTOP_UA } })).status).toBe(302);
    await eventually(async () => (await http(stack.api.origin, 'GET', '/v1/analytics', { key: who.org.apiKey })).body.total_scans === 2 || undefined, 30_000, 'both scans counted');

    const watched = await stack.signedIn(who);
    const { page } = watched;
    await page.goto(`${stack.appUrl}/analytics`);
    const totals = page.getByRole('list', { name: 'Totals' });
    const codes = page.getByRole('table', { name: 'Codes' });
    await codes.getByRole('link', { name: 'Banner' }).waitFor();
    expect(await totals.innerText()).toMatch(/^2\s+scans/m);

    // A tag (offered from the workspace's tags), then Show.
    await page.getByLabel('Tag', { exact: true }).selectOption('print');
    await page.getByRole('button', { name: 'Show' }).click();
    await eventually(async () => /^1\s+scans/m.test(await totals.innerText()) || undefined, 10_000, 'the tag filter');
    await codes.getByRole('link', { name: 'Flyer' }).waitFor();
    expect(await codes.getByRole('link', { name: 'Banner' }).count()).toBe(0);
    // The export holds what the screen shows: the tag's code only.
    expect(await exportedCodes(page)).toEqual([flyer.id]);
    await page.getByLabel('Tag', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Show' }).click();
    await eventually(async () => /^2\s+scans/m.test(await totals.innerText()) || undefined, 10_000, 'the tag filter removed');

    // A device row filters by it, by keyboard; its chip removes the filter.
    const desktop = page.getByRole('button', { name: 'Only scans with device Desktop' });
    await desktop.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Remove filter device: Desktop' }).waitFor();
    await eventually(async () => /^1\s+scans/m.test(await totals.innerText()) || undefined, 10_000, 'the device filter');
    await codes.getByRole('link', { name: 'Banner' }).waitFor();
    expect(await codes.getByRole('link', { name: 'Flyer' }).count()).toBe(0);
    // The export keeps the device filter (device=Desktop on GET /v1/scans).
    expect(await exportedCodes(page)).toEqual([banner.id]);
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `filtered workspace analytics at ${w} px`));
    await page.getByRole('button', { name: 'Remove filter device: Desktop' }).click();
    await eventually(async () => /^2\s+scans/m.test(await totals.innerText()) || undefined, 10_000, 'the device filter removed');

    // A code row opens that code's analytics.
    await codes.getByRole('link', { name: 'Flyer' }).click();
    await page.waitForURL(new RegExp(`/codes/${flyer.id}\\?tab=analytics$`));
    expect(await page.getByRole('tab', { name: 'Analytics' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('heading', { name: 'Scans over time' }).waitFor();
    await eventually(async () => /^1\s+scans/m.test(await page.getByRole('list', { name: 'Totals' }).innerText()) || undefined, 10_000, "the code's own analytics");
    expect(watched.violations).toEqual([]);
  });

  it('uploads a 50-row CSV, previews it, shows the progress and downloads a ZIP of 50 images', async () => {
    const watched = await stack.signedIn(owner);
    const { page } = watched;
    await page.goto(`${stack.appUrl}/batches`);
    await page.getByRole('heading', { level: 1, name: 'Batches' }).waitFor();

    // A bad file first: the preview names the row and Create stays off.
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'bad.csv', mimeType: 'text/csv', buffer: Buffer.from('name,destination\nA,ftp://example.com\n') });
    await page.getByRole('list', { name: 'Rows with problems' }).getByText('Line 2: destination must be an http(s) URL').waitFor();
    expect(await page.getByRole('button', { name: /^Create/ }).isDisabled()).toBe(true);

    const rows = Array.from({ length: 50 }, (_, i) => `"Table ${i + 1}, terrace",https://example.com/t/${i + 1},menu;tables`);
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'tables.csv', mimeType: 'text/csv', buffer: Buffer.from(`name,destination,tags\n${rows.join('\n')}\n`) });
    await page.getByText('tables.csv: 50 rows.').waitFor();
    const preview = page.getByRole('table', { name: 'Preview of the first 20 rows' });
    expect(await preview.innerText()).toContain('Table 1, terrace');
    expect(await preview.innerText()).toContain('destination: https://example.com/t/20');
    expect(await page.getByRole('button', { name: 'Create 50 codes' }).isDisabled()).toBe(false);
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `batch preview at ${w} px`));

    const create = page.getByRole('button', { name: 'Create 50 codes' });
    await create.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/app\/batches\/batch_/);
    const progress = page.getByRole('progressbar', { name: 'Progress' });
    await progress.waitFor();
    expect(await progress.getAttribute('max')).toBe('50');
    await page.getByRole('status').filter({ hasText: 'Completed: 50 of 50 codes created' }).waitFor({ timeout: 60_000 });
    expect(await progress.getAttribute('value')).toBe('50');
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `batch at ${w} px`));

    await page.getByLabel('Size (px)').fill('200');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByRole('button', { name: 'Download ZIP' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);
    const entries = zipEntries(readFileSync((await download.path())!));
    const images = entries.filter((e) => e.name.endsWith('.png'));
    expect(images).toHaveLength(50);
    for (const img of images) expect(img.head.subarray(0, 4).toString('latin1')).toBe('\x89PNG');
    expect(entries.map((e) => e.name)).toContain('manifest.csv');

    // The list shows it.
    await page.getByRole('link', { name: 'All batches' }).click();
    await page.getByRole('table', { name: 'Batches' }).getByText('50 of 50 created').waitFor();
    expect(watched.violations).toEqual([]);
  });

  it('a batch takes a template for every code, and its ZIP comes as print PDFs', async () => {
    const who = await freshOwner(stack);
    const tpl = await http(stack.api.origin, 'POST', '/v1/templates', { key: who.org.apiKey, body: { name: 'Navy', design: { colors: { foreground: '#1a237e', background: '#ffffff' } } } });
    expect(tpl.status).toBe(201);
    const watched = await stack.signedIn(who);
    const { page } = watched;
    await page.goto(`${stack.appUrl}/batches`);
    await page.getByRole('heading', { level: 1, name: 'Batches' }).waitFor();
    const rows = [1, 2, 3].map((i) => `Door ${i},https://example.com/door/${i}`);
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'doors.csv', mimeType: 'text/csv', buffer: Buffer.from(`name,destination\n${rows.join('\n')}\n`) });
    await page.getByText('doors.csv: 3 rows.').waitFor();
    await page.getByText('Design for every code (optional)').click();
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Navy' });
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `batch design at ${w} px`));
    await page.getByRole('button', { name: 'Create 3 codes' }).click();
    await page.waitForURL(/\/app\/batches\/batch_/);
    await page.getByRole('status').filter({ hasText: 'Completed: 3 of 3 codes created' }).waitFor({ timeout: 60_000 });
    const codes = await http(stack.api.origin, 'GET', '/v1/qr-codes?limit=10', { key: who.org.apiKey });
    expect(codes.body.data).toHaveLength(3);
    for (const c of codes.body.data) expect(c.design.colors.foreground.toLowerCase()).toBe('#1a237e');

    await page.getByLabel('Image format').selectOption('pdf');
    await page.getByLabel('Printed width (mm)').fill('30');
    expect(await page.getByLabel('Size (px)').count()).toBe(0);
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByRole('button', { name: 'Download ZIP' }).click()]);
    // PDFs are deflated in the ZIP (only PNGs are stored as they are): their names say what they are.
    const names = zipEntries(readFileSync((await download.path())!)).map((e) => e.name);
    expect(names.filter((n) => n.endsWith('.pdf'))).toHaveLength(3);
    expect(names.filter((n) => /\.(png|svg|webp)$/.test(n))).toEqual([]);
    expect(watched.violations).toEqual([]);
  });
});
