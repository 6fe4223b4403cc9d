import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { closeDecoders, decodeBoth } from '../../src/modules/rendering/testing/qr-decoders';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { db, eventually, http } from '../setup/app';
import {
  atBothWidths,
  DESKTOP,
  expectNoSeriousA11yViolations,
  freshOwner,
  type Owner,
  useDashboardStack,
  type WatchedPage,
} from '../setup/browser';

/** The codes screens: create (URL, Wi-Fi), errors at their field, design with the API's preview, PNG download,
 * re-pointing a code and scanning it on the scan host, the list's filters and bulk actions. */
describe('dashboard: QR codes', () => {
  const stack = useDashboardStack(21);
  let owner: Owner;
  let watched: WatchedPage;

  beforeAll(async () => {
    owner = await freshOwner(stack);
    watched = await stack.signedIn(owner);
  });
  afterAll(async () => {
    await closeDecoders();
  });

  const codeByName = async (name: string) => {
    const res = await http(stack.api.origin, 'GET', `/v1/qr-codes?search=${encodeURIComponent(name)}`, { key: owner.org.apiKey });
    return res.body.data.find((c: { name: string }) => c.name === name);
  };

  it('creates a URL code, shows an API error at the field it names, and passes axe at 375 and 1280 px', async () => {
    const { page, violations } = watched;
    await page.goto(`${stack.appUrl}/codes`);
    await page.getByRole('link', { name: 'Create a code' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Create a QR code' }).waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `create form at ${w} px`));
    await page.setViewportSize(DESKTOP);
    await page.getByLabel('Name', { exact: true }).fill('Spring menu');
    const destination = page.getByLabel('Destination URL (required)');
    await destination.fill('ftp://example.com/menu');
    await page.getByRole('button', { name: 'Create the code' }).click();
    // The API's message, bound to the destination input.
    await page.locator('.field-error').first().waitFor();
    const described = await destination.getAttribute('aria-describedby');
    const message = await page.locator(`[id="${described?.split(' ').pop()}"]`).textContent();
    expect(message).toMatch(/destination/i);
    expect(await destination.getAttribute('aria-invalid')).toBe('true');
    await destination.fill('https://example.com/menu');
    await page.getByRole('button', { name: 'Create the code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Spring menu' }).waitFor();
    const code = await codeByName('Spring menu');
    expect(code).toMatchObject({ type: 'url', kind: 'dynamic', target: expect.objectContaining({ destination: 'https://example.com/menu' }) });
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `code detail at ${w} px`));
    expect(violations).toEqual([]);
  });

  it('creates a Wi-Fi code', async () => {
    const { page } = watched;
    await page.goto(`${stack.appUrl}/codes/new`);
    await page.getByLabel('Type').selectOption('wifi');
    await page.getByLabel('Name', { exact: true }).fill('Guest Wi-Fi');
    await page.getByLabel('Network name (SSID) (required)').fill('Cafe Guests');
    await page.getByLabel('Security').selectOption('WPA');
    await page.getByLabel('Network password').fill('espresso-2026');
    await page.getByRole('button', { name: 'Create the code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Guest Wi-Fi' }).waitFor();
    const code = await codeByName('Guest Wi-Fi');
    expect(code).toMatchObject({ type: 'wifi', target: expect.objectContaining({ ssid: 'Cafe Guests', encryption: 'WPA' }) });
  });

  it('changes the design with a live preview, saves it, and downloads a PNG that decodes to the short URL', async () => {
    const { page, violations } = watched;
    const code = await codeByName('Spring menu');
    await page.goto(`${stack.appUrl}/codes/${code.id}`);
    await page.getByRole('tab', { name: 'Design' }).click();
    const preview = page.getByRole('img', { name: 'Preview of the QR code with this design' });
    await preview.waitFor();
    const before = await preview.getAttribute('src');
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `design tab at ${w} px`));
    await page.getByLabel('Foreground colour').fill('#1a4d8f');
    await page.getByLabel('Body').selectOption('rounded');
    // The preview is redrawn by the API after the change.
    await eventually(async () => (await preview.getAttribute('src')) !== before, 20_000, 'a new preview');
    // A background too close to the foreground: the API's contrast error appears at the colour fields.
    await page.getByLabel('Background colour').fill('#1a4d90');
    await page.locator('.field-error').filter({ hasText: /contrast/i }).first().waitFor();
    await page.getByLabel('Background colour').fill('#ffffff');
    await page.getByRole('button', { name: 'Save the design' }).click();
    await page.getByText('Design saved').waitFor();
    const saved = await codeByName('Spring menu');
    expect(saved.design).toMatchObject({ colors: expect.objectContaining({ foreground: '#1a4d8f' }), shapes: expect.objectContaining({ body: 'rounded' }) });

    await page.getByRole('tab', { name: 'Overview' }).click();
    await page.getByLabel('Format').selectOption('png');
    await page.getByLabel('Width in pixels').fill('600');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toMatch(/\.png$/);
    const png = readFileSync((await download.path())!);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const decoded = await decodeBoth(png);
    expect(decoded.zxing).toBe(saved.short_url);
    expect(violations).toEqual([]);
  });

  it('previews the stored design, turns off a transparent background and a frame, removes a stored logo, and drops a refusal once the field changes', async () => {
    // A workspace of its own: the other tests count the codes of theirs.
    const own = await freshOwner(stack);
    const { page } = await stack.signedIn(own);
    const png = await sharp({ create: { width: 120, height: 80, channels: 4, background: '#c62828' } }).png().toBuffer();
    const created = await http(stack.api.origin, 'POST', '/v1/qr-codes', {
      key: own.org.apiKey,
      body: {
        name: 'Fancy design',
        target: { type: 'url', destination: 'https://example.com/fancy' },
        design: {
          eye_colors: { frame: '#aa0000', ball: '#0000aa' },
          frame: { style: 'box', text: 'Hi', color: '#003300' },
          transparent_background: true,
          logo: { url: `data:image/png;base64,${png.toString('base64')}` },
        },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    await page.goto(`${stack.appUrl}/codes/${id}`);
    await page.getByRole('tab', { name: 'Design' }).click();
    await page.getByRole('img', { name: 'Preview of the QR code with this design' }).waitFor();
    expect(await page.getByLabel('Frame style').inputValue()).toBe('box');
    expect(await page.getByLabel('Transparent background').isChecked()).toBe(true);
    await page.getByText('The preview leaves out the logo this code already has').waitFor();

    // A refused save: the error sits at the field until the field changes.
    await page.getByLabel('Foreground colour').fill('#eeeeee');
    await page.getByRole('button', { name: 'Save the design' }).click();
    await eventually(async () => (await page.getByLabel('Foreground colour').getAttribute('aria-invalid')) === 'true', 20_000, 'the refusal at the field');
    await page.getByLabel('Foreground colour').fill('#7a1f1f');
    await eventually(async () => (await page.getByLabel('Foreground colour').getAttribute('aria-invalid')) !== 'true', 20_000, 'the refusal gone');

    // A logo over the API's 1 MB is named at the Logo field before anything is sent.
    await page.getByLabel('Logo image').setInputFiles({ name: 'big.png', mimeType: 'image/png', buffer: Buffer.alloc(1_900_000) });
    await eventually(async () => (await page.getByLabel('Logo image').getAttribute('aria-invalid')) === 'true', 10_000, 'the logo refusal at the field');
    await page.getByText(/The logo is larger than 1 MB \(1\.8 MB\)/).waitFor();

    await page.getByLabel('Transparent background').uncheck();
    await page.getByLabel('Frame style').selectOption('none');
    await page.getByRole('button', { name: 'Remove the logo' }).click();
    await page.getByRole('button', { name: 'Save the design' }).click();
    await page.getByText('Design saved').waitFor();
    const saved = (await http(stack.api.origin, 'GET', `/v1/qr-codes/${id}`, { key: own.org.apiKey })).body;
    expect(saved.design.transparent_background).toBe(false);
    expect(saved.design.frame?.style ?? 'none').toBe('none');
    expect(saved.design.has_logo).toBe(false);
    expect(saved.design.eye_colors).toEqual({ frame: '#aa0000', ball: '#0000aa' });
    expect(saved.design.colors.foreground).toBe('#7a1f1f');
  });

  it('creates a review page (links by platform), and renames a static code with a design preview', async () => {
    // A workspace of its own: the other tests count the codes of theirs.
    const own = await freshOwner(stack);
    const { page } = await stack.signedIn(own);
    const codeByName = async (name: string) => {
      const res = await http(stack.api.origin, 'GET', `/v1/qr-codes?search=${encodeURIComponent(name)}`, { key: own.org.apiKey });
      return res.body.data[0];
    };
    await page.goto(`${stack.appUrl}/codes/new`);
    await page.getByLabel('Type').selectOption('review');
    await page.getByLabel('Name', { exact: true }).fill('Reviews');
    await page.getByLabel('Page title (required)').fill('Review us');
    await page.getByLabel('Review links (required)').fill('google | https://g.page/r/abc');
    await page.getByRole('button', { name: 'Create the code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Reviews' }).waitFor();
    expect((await codeByName('Reviews')).target).toMatchObject({ review_page: { title: 'Review us', links: [{ platform: 'google', url: 'https://g.page/r/abc' }] } });

    const made = await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: own.org.apiKey, body: { name: 'Printed text', type: 'static', target: { type: 'text', text: 'hello' } } });
    const previews: number[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/v1/qr-codes/preview')) previews.push(r.status());
    });
    await page.goto(`${stack.appUrl}/codes/${made.body.id}`);
    await page.getByRole('tab', { name: 'Settings' }).click();
    expect(await page.getByLabel('Tags').count()).toBe(0);
    await page.getByLabel('Name', { exact: true }).fill('Printed text, renamed');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved').waitFor();
    expect((await codeByName('Printed text, renamed')).id).toBe(made.body.id);
    await page.getByRole('tab', { name: 'Design' }).click();
    await eventually(async () => (previews.length > 0 ? true : undefined), 10_000, 'a design preview');
    expect(previews.every((s) => s === 200)).toBe(true);
  });

  it('re-points the code in Settings; the scan host redirects to the new destination', async () => {
    const { page } = watched;
    const code = await codeByName('Spring menu');
    await page.goto(`${stack.appUrl}/codes/${code.id}`);
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByLabel('Destination URL (required)').fill('https://example.com/summer-menu');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved').waitFor();
    const scan = await fetch(`${stack.scan.origin}/${code.short_code}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' } });
    expect(scan.status).toBe(302);
    expect(scan.headers.get('location')).toMatch(/^https:\/\/example\.com\/summer-menu/);
  });

  it('sets UTM parameters in Settings, which scans carry, and clears them again', async () => {
    const { page } = watched;
    const code = await codeByName('Spring menu');
    const scan = async () =>
      (await fetch(`${stack.scan.origin}/${code.short_code}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' } })).headers.get('location');
    await page.goto(`${stack.appUrl}/codes/${code.id}`);
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByText('UTM parameters').click();
    await page.getByLabel('Source (utm_source)').fill('poster');
    await page.getByLabel('Campaign (utm_campaign)').fill('spring sale');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved').waitFor();
    expect((await codeByName('Spring menu')).target.utm).toEqual({ source: 'poster', campaign: 'spring sale' });
    expect(await scan()).toBe('https://example.com/summer-menu?utm_source=poster&utm_campaign=spring+sale');
    // Emptied fields are removed, not kept.
    await page.reload();
    await page.getByRole('tab', { name: 'Settings' }).click();
    await page.getByLabel('Source (utm_source)').fill('');
    await page.getByLabel('Campaign (utm_campaign)').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved').last().waitFor();
    await eventually(async () => ((await codeByName('Spring menu')).target.utm === null ? true : undefined), 5_000, 'utm cleared');
    expect(await scan()).toBe('https://example.com/summer-menu');
  });

  it('filters the list by type and tag, and pauses and trashes codes in bulk', async () => {
    const { page } = watched;
    await page.goto(`${stack.appUrl}/codes?type=wifi`);
    const table = page.getByRole('table', { name: 'QR codes' });
    await table.getByRole('link', { name: 'Guest Wi-Fi' }).waitFor();
    expect(await table.getByRole('link', { name: 'Spring menu' }).count()).toBe(0);
    // Tag both codes in bulk, then filter by the tag.
    await page.goto(`${stack.appUrl}/codes`);
    await table.getByRole('link', { name: 'Spring menu' }).waitFor();
    await page.getByRole('checkbox', { name: 'Select every row on this page' }).check();
    await page.getByLabel('Add tag').fill('lobby');
    await page.getByRole('button', { name: 'Tag', exact: true }).click();
    await page.getByText('Tagged: 2 of 2 codes').waitFor();
    // The tag filter offers the workspace's tags (GET /v1/tags) with their live code counts.
    const tagFilter = page.getByLabel('Tag', { exact: true });
    await tagFilter.selectOption('lobby');
    await page.waitForURL(/[?&]tag=lobby/);
    expect(await tagFilter.locator('option').allTextContents()).toContain('lobby (2)');
    await page.goto(`${stack.appUrl}/codes?tag=lobby`);
    await table.getByRole('link', { name: 'Guest Wi-Fi' }).waitFor();
    expect(await table.getByRole('row').count()).toBe(3);
    expect(await tagFilter.inputValue()).toBe('lobby');
    // Pause one, by keyboard: select its row, then the bulk Pause button.
    await page.getByRole('checkbox', { name: 'Select Guest Wi-Fi' }).focus();
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused: 1 of 1 codes').waitFor();
    expect((await codeByName('Guest Wi-Fi')).is_active).toBe(false);
    // Trash it (a confirm dialog first), then restore it from the trashed view.
    await page.getByRole('checkbox', { name: 'Select Guest Wi-Fi' }).check();
    await page.getByRole('button', { name: 'Move to Trash' }).click();
    const dialog = page.getByRole('alertdialog');
    await expectNoSeriousA11yViolations(page, 'trash confirmation');
    await dialog.getByRole('button', { name: 'Move to Trash' }).click();
    await page.getByText('Moved to the Trash: 1 of 1 codes').waitFor();
    expect(await codeByName('Guest Wi-Fi')).toBeUndefined();
    await page.goto(`${stack.appUrl}/codes?status=trashed`);
    await page.getByRole('checkbox', { name: 'Select Guest Wi-Fi' }).check();
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Restored: 1 of 1 codes').waitFor();
    expect(await codeByName('Guest Wi-Fi')).toMatchObject({ name: 'Guest Wi-Fi' });
  });

  it('creates an e-mail code with Cc and Bcc, and a location code that opens Waze', async () => {
    const { page } = watched;
    await page.goto(`${stack.appUrl}/codes/new`);
    await page.getByLabel('Type').selectOption('email');
    await page.getByLabel('Name', { exact: true }).fill('Support mail');
    await page.getByLabel('E-mail address (required)').fill('help@example.com');
    await page.getByLabel('Cc', { exact: true }).fill('a@example.com, b@example.com');
    await page.getByLabel('Bcc', { exact: true }).fill('audit@example.com');
    await page.getByRole('button', { name: 'Create the code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Support mail' }).waitFor();
    expect((await codeByName('Support mail')).target).toMatchObject({ email: 'help@example.com', cc: ['a@example.com', 'b@example.com'], bcc: ['audit@example.com'] });
    // The Settings form shows the lists as they were typed.
    await page.getByRole('tab', { name: 'Settings' }).click();
    expect(await page.getByLabel('Cc', { exact: true }).inputValue()).toBe('a@example.com, b@example.com');

    await page.goto(`${stack.appUrl}/codes/new`);
    await page.getByLabel('Type').selectOption('location');
    await page.getByLabel('Name', { exact: true }).fill('Warehouse');
    await page.getByLabel('Latitude (required)').fill('48.8584');
    await page.getByLabel('Longitude (required)').fill('2.2945');
    await page.getByLabel('Map app (a dynamic code opens it)').selectOption('waze');
    await page.getByRole('button', { name: 'Create the code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Warehouse' }).waitFor();
    const made = await codeByName('Warehouse');
    expect(made.target).toMatchObject({ lat: 48.8584, lng: 2.2945, map_app: 'waze' });
    const scan = await fetch(`${stack.scan.origin}/${made.short_code}`, { redirect: 'manual' });
    expect(scan.headers.get('location')).toBe('https://waze.com/ul?ll=48.8584,2.2945&navigate=yes');
  });

  it('Settings in a browser outside UTC keep every time; a password is removed; an emptied required field is named; a GS1 code is renamed and re-pointed', async () => {
    const { page, violations } = await stack.signedIn(owner, DESKTOP, { timezoneId: 'Europe/Paris' });
    const api = (method: string, path: string, body?: unknown) => http(stack.api.origin, method, path, { key: owner.org.apiKey, body });
    const made = await api('POST', '/v1/qr-codes', {
      name: 'Launch party',
      target: { type: 'event', title: 'Launch', start: '2027-03-01T10:00:00Z', end: '2027-03-01T12:00:00Z' },
      expires_at: '2030-01-01T09:30:15Z',
      password: 'open sesame',
    });
    expect(made.status).toBe(201);
    const settings = async (id: string) => {
      await page.goto(`${stack.appUrl}/codes/${id}`);
      await page.getByRole('tab', { name: 'Settings' }).click();
    };
    await settings(made.body.id);
    // Shown in the browser's own time (Paris is UTC+1 in March and January).
    expect(await page.getByLabel('Starts (required)').inputValue()).toBe('2027-03-01T11:00');
    expect(await page.getByLabel('Expires').inputValue()).toBe('2030-01-01T10:30:15');
    await page.getByLabel('Name', { exact: true }).fill('Launch party, renamed');
    await page.getByLabel('Remove the password').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved').waitFor();
    const saved = (await api('GET', `/v1/qr-codes/${made.body.id}`)).body;
    expect(saved).toMatchObject({ name: 'Launch party, renamed', expires_at: '2030-01-01T09:30:15.000Z', has_password: false });
    expect(saved.target).toMatchObject({ start: '2027-03-01T10:00:00.000Z', end: '2027-03-01T12:00:00.000Z' });

    // An emptied required field is sent as null: the API's message is shown at it, and nothing changes.
    await page.getByLabel('Title (required)').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const title = page.getByLabel('Title (required)');
    await eventually(async () => ((await title.getAttribute('aria-invalid')) === 'true' ? true : undefined), 10_000, 'the error at the title');
    expect((await api('GET', `/v1/qr-codes/${made.body.id}`)).body.target.title).toBe('Launch');

    const gs1 = await api('POST', '/v1/qr-codes', { type: 'gs1', mode: 'dynamic', name: 'Shelf label', primary_key: { ai: '01', value: randomGtin() }, destination: 'https://example.com/product' });
    expect(gs1.status).toBe(201);
    await settings(gs1.body.id);
    // A GS1 code takes an expiry and its URL only.
    expect(await page.getByLabel('Maximum scans').count()).toBe(0);
    expect(await page.getByLabel('Password').count()).toBe(0);
    await page.getByLabel('Name', { exact: true }).fill('Shelf label, aisle 4');
    await page.getByLabel('Default link (required)').fill('https://example.com/product-v2');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Changes saved').waitFor();
    const relabelled = (await api('GET', `/v1/qr-codes/${gs1.body.id}`)).body;
    expect(relabelled).toMatchObject({ name: 'Shelf label, aisle 4', max_scans: null, has_password: false });
    expect(relabelled.target.default_link).toBe('https://example.com/product-v2');
    expect(violations).toEqual([]);
  });

  it('shows codes paused by the plan as such, with no link to a page they lack, restores them, and counts only codes a bulk tag changed', async () => {
    const other = await freshOwner(stack);
    const { page } = await stack.signedIn(other);
    const create = (name: string, tags: string[] = []) =>
      http(stack.api.origin, 'POST', '/v1/qr-codes', { key: other.org.apiKey, body: { name, tags, target: { type: 'url', destination: 'https://example.com/x' } } });
    const held = await create('Held back');
    await create('Tagged already', ['lobby']);
    await create('Untagged');
    // What `org:plan` does to codes over a smaller plan's limit.
    await db(stack.api).execute(`update qr_codes set status = 'paused', deleted_at = now() where id = ?`, [held.body.id]);
    await page.goto(`${stack.appUrl}/codes?status=paused`);
    const table = page.getByRole('table', { name: 'QR codes' });
    await table.getByRole('cell', { name: 'Paused by the plan' }).waitFor();
    expect(await table.getByRole('cell', { name: 'Trashed' }).count()).toBe(0);
    expect(await table.getByRole('link', { name: 'Held back' }).count()).toBe(0);
    await page.getByRole('checkbox', { name: 'Select Held back' }).check();
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Restored: 1 of 1 codes').waitFor();
    expect((await http(stack.api.origin, 'GET', `/v1/qr-codes/${held.body.id}`, { key: other.org.apiKey })).status).toBe(200);
    // A bulk tag counts the codes it changed, not the one that already had the tag.
    await page.goto(`${stack.appUrl}/codes`);
    await table.getByRole('link', { name: 'Held back' }).waitFor();
    await page.getByRole('checkbox', { name: 'Select every row on this page' }).check();
    await page.getByLabel('Add tag').fill('lobby');
    await page.getByRole('button', { name: 'Tag', exact: true }).click();
    await page.getByText('Tagged: 2 of 3 codes').waitFor();
  });

  it("a bulk pause that includes a static code reports the API's refusal for it", async () => {
    const other = await freshOwner(stack);
    const { page } = await stack.signedIn(other);
    await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: other.org.apiKey, body: { name: 'Live one', target: { type: 'url', destination: 'https://example.com/l' } } });
    await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: other.org.apiKey, body: { type: 'static', name: 'Printed one', target: { type: 'url', destination: 'https://example.com/p' } } });
    await page.goto(`${stack.appUrl}/codes`);
    await page.getByRole('table', { name: 'QR codes' }).getByRole('link', { name: 'Printed one' }).waitFor();
    await page.getByRole('checkbox', { name: 'Select every row on this page' }).check();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused: 1 of 2 codes').waitFor();
    await page.getByText(/^Printed one: Static codes cannot change 'is_active'/).waitFor();
    expect(await page.getByText(/could not be reached/).count()).toBe(0);
  });
});
