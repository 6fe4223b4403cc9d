import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { createCode, db, eventually, http } from '../setup/app';
import {
  atBothWidths,
  expectNoSeriousA11yViolations,
  freshOwner,
  mailedLink,
  useDashboardStack,
} from '../setup/browser';
import { TestDnsServer } from '../setup/dns-server';
import { uniqueHostname } from '../setup/domains';
import { addMember, PASSWORD } from '../setup/members';
import { freePort } from '../setup/processes';

/** Presses Tab until the focused element's accessible label (aria-label, label, or text) matches, as a keyboard user would. */
async function tabTo(page: Page, name: RegExp, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const label = await page.evaluate<string>(
      `(() => { const e = document.activeElement; if (!e) return ''; return e.getAttribute('aria-label') || (e.labels && e.labels[0] ? e.labels[0].textContent : '') || e.textContent || ''; })()`,
    );
    if (name.test(label.trim())) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

/** The workspace-settings screens: folders, tags, templates, domains, webhooks, events, members, audit log, trash. */
describe('dashboard: workspace settings screens', () => {
  jest.setTimeout(120_000);
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await new TestDnsServer().start();
  });
  const stack = useDashboardStack(27, { env: () => ({ DOMAIN_DNS_SERVERS: dns.address, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' }) });
  const { signedIn } = stack;
  const goTo = async (page: Page, path: string, heading: string) => {
    await page.goto(`${stack.appUrl}${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  afterAll(async () => {
    await dns?.stop();
  });

  it('every screen, with data on it, has no serious axe violations at 375 and 1280 px', async () => {
    const owner = await freshOwner(stack);
    const key = owner.org;
    await http(stack.api.origin, 'POST', '/v1/folders', { key: key.apiKey, body: { name: 'Spring campaign' } });
    // A long name without spaces must wrap at 375 px, not widen the page.
    await http(stack.api.origin, 'POST', '/v1/folders', { key: key.apiKey, body: { name: 'Autumn-winter-retail-campaign-posters-and-shelf-talkers-2027' } });
    await http(stack.api.origin, 'POST', '/v1/templates', { key: key.apiKey, body: { name: 'Brand blue', design: { colors: { foreground: '#0b57d0', background: '#ffffff' } } } });
    await http(stack.api.origin, 'POST', '/v1/domains', { key: key.apiKey, body: { hostname: uniqueHostname() } });
    await http(stack.api.origin, 'POST', '/v1/webhooks', { key: key.apiKey, body: { url: 'https://hooks.example.com/in', events: ['*'] } });
    await createCode(stack.api, key, { name: 'Tagged', target: { type: 'url', destination: 'https://example.com/a' }, tags: ['spring', 'averyveryveryverylongtagnamewithoutanyspaces12345'] });
    const trashed = await createCode(stack.api, key, { name: 'Old flyer', target: { type: 'url', destination: 'https://example.com/b' } });
    await http(stack.api.origin, 'DELETE', `/v1/qr-codes/${trashed.id}`, { key: key.apiKey });
    const { page, violations } = await signedIn(owner);
    const screens: Array<[string, string]> = [
      ['/folders', 'Folders'],
      ['/tags', 'Tags'],
      ['/templates', 'Templates'],
      ['/domains', 'Domains'],
      ['/webhooks', 'Webhooks'],
      ['/events', 'Events'],
      ['/members', 'Members'],
      ['/audit', 'Audit log'],
      ['/trash', 'Trash'],
    ];
    for (const [path, heading] of screens) {
      await goTo(page, path, heading);
      // Let the lists arrive (a table, cards or an empty state), so axe checks the full screen.
      await page.locator('table, .cards, .empty, .chips').first().waitFor();
      await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `${heading} at ${w} px`));
    }
    expect(violations).toEqual([]);
  }, 240_000); // 18 axe runs: minutes on a loaded machine

  it('folders: create, rename and delete by keyboard alone', async () => {
    const owner = await freshOwner(stack);
    const { page, violations } = await signedIn(owner);
    await goTo(page, '/folders', 'Folders');
    await page.getByText('No folders yet.').waitFor();
    await tabTo(page, /^Folder name/);
    await page.keyboard.type('Menus 2026');
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'Menus 2026', exact: true }).waitFor();
    await tabTo(page, /^Rename Menus 2026$/);
    await page.keyboard.press('Enter');
    // Focus moves into the rename field; replace the name and save with Enter.
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Menus 2027');
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'Menus 2027', exact: true }).waitFor();
    // The focus is back on the row's Rename button, not on the page's body.
    await expect(page.evaluate("document.activeElement && document.activeElement.getAttribute('aria-label')")).resolves.toBe('Rename Menus 2027');
    const listed = await http(stack.api.origin, 'GET', '/v1/folders', { key: owner.org.apiKey });
    expect(listed.body.data.map((f: { name: string }) => f.name)).toEqual(['Menus 2027']);
    await tabTo(page, /^Delete Menus 2027$/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('alertdialog');
    await dialog.getByRole('heading', { name: /Delete folder/ }).waitFor();
    await tabTo(page, /^Delete folder$/, 5);
    await page.keyboard.press('Enter');
    await page.getByText('No folders yet.').waitFor();
    expect((await http(stack.api.origin, 'GET', '/v1/folders', { key: owner.org.apiKey })).body.data).toEqual([]);
    expect(violations).toEqual([]);
  });

  it('webhooks: create an endpoint for a local receiver, copy its secret once, send a test ping and see the delivery; rotate, disable; the ping is in the event archive', async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => receiver.listen(port, '127.0.0.1', r));
    try {
      const owner = await freshOwner(stack);
      const { page, context, violations } = await signedIn(owner);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.api.origin });
      await goTo(page, '/webhooks', 'Webhooks');
      // An invalid URL: the API's message lands at the URL field.
      await page.getByLabel('Endpoint URL').fill('ftp://127.0.0.1/hook');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      await page.locator('.field.has-error').filter({ has: page.getByLabel('Endpoint URL') }).locator('.field-error').waitFor();
      await page.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${port}/hook`);
      await page.getByLabel('Description (optional)').fill('Local receiver');
      await page.getByRole('button', { name: 'Create endpoint' }).click();
      const secret = (await page.getByLabel('Signing secret', { exact: true }).textContent())?.trim() ?? '';
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'Copy signing secret' }).click();
      await page.getByText('Copied', { exact: true }).waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(secret);
      await expectNoSeriousA11yViolations(page, 'webhooks with the secret shown');
      await page.getByRole('link', { name: 'Open endpoint' }).click();
      await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
      const endpointPage = page.url();
      // The secret is not shown again anywhere.
      expect(await page.content()).not.toContain(secret);
      await page.getByRole('button', { name: 'Send test ping' }).click();
      await eventually(async () => received.length > 0, 20_000, 'the ping at the receiver');
      expect(received[0].headers['scanlink-signature']).toBeDefined();
      expect(JSON.parse(received[0].body)).toMatchObject({ type: 'ping' });
      // The delivery shows up with its status.
      await eventually(
        async () => {
          await page.getByRole('button', { name: 'Refresh deliveries' }).click();
          return (await page.getByRole('cell', { name: 'succeeded' }).count()) > 0;
        },
        20_000,
        'a succeeded delivery in the table',
      );
      await page.getByRole('cell', { name: '200', exact: true }).waitFor();
      await page.getByText(/^Response of wd_/).click();
      await page.getByText('thanks').waitFor();
      await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `webhook endpoint at ${w} px`));
      // Rotate: a new secret, shown once.
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByRole('heading', { name: 'New signing secret' }).waitFor();
      const rotated = (await page.getByLabel('Signing secret', { exact: true }).textContent())?.trim();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      // Disable, then enable.
      await page.getByRole('button', { name: 'Disable', exact: true }).click();
      await page.getByText('Disabled (manual)').waitFor();
      await page.getByRole('button', { name: 'Enable', exact: true }).click();
      await page.getByText('Enabled', { exact: true }).first().waitFor();
      // The event archive lists the ping; its JSON opens in the detail view; filtering by another type hides it.
      await goTo(page, '/events', 'Events');
      await page.getByRole('cell', { name: 'ping', exact: true }).waitFor();
      await page.getByRole('button', { name: /^Show JSON of evt_/ }).first().click();
      await page.getByLabel(/^JSON of evt_/).getByText('"type": "ping"').waitFor();
      await page.getByLabel('Event type').selectOption('qr.deleted');
      await page.getByText('No qr.deleted events in the last 30 days.').waitFor();
      // Delete the endpoint.
      await page.goto(endpointPage);
      await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Delete endpoint' }).click();
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await page.getByText('No webhook endpoints yet.').waitFor();
      expect(violations).toEqual([]);
    } finally {
      receiver.close();
    }
  });

  it('domains: add a host name, see the exact TXT record with copy buttons, verify it', async () => {
    const owner = await freshOwner(stack);
    const { page, context, violations } = await signedIn(owner);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.api.origin });
    await goTo(page, '/domains', 'Domains');
    // An IP literal is refused at the field.
    await page.getByLabel('Host name').fill('192.0.2.1');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.locator('.field.has-error .field-error').waitFor();
    const hostname = uniqueHostname();
    await page.getByLabel('Host name').fill(hostname);
    await page.getByRole('button', { name: 'Add domain' }).click();
    const record = page.getByRole('group', { name: `DNS record for ${hostname}` });
    await record.waitFor();
    const listed = (await http(stack.api.origin, 'GET', '/v1/domains', { key: owner.org.apiKey })).body.data[0];
    expect(await record.locator('code').allTextContents()).toEqual(['TXT', `_scanlink-challenge.${hostname}`, listed.verification.value]);
    await record.getByRole('button', { name: 'Copy record value' }).click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(listed.verification.value);
    await page.getByText('Pending verification').waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `domains at ${w} px`));
    // Not published yet: still pending, and the screen says so.
    await page.getByRole('button', { name: `Verify ${hostname}` }).click();
    await page.getByText(/the TXT record was not found yet/).waitFor();
    dns.setTxt(listed.verification.name, listed.verification.value);
    await page.getByRole('button', { name: `Verify ${hostname}` }).click();
    await page.getByText('Verified', { exact: true }).waitFor();
    await page.getByRole('button', { name: `Make ${hostname} the primary domain` }).click();
    await page.getByText('Primary', { exact: true }).waitFor();
    expect(violations).toEqual([]);
  });

  it('members: invite by e-mail with a role, see the invitation, resend and cancel it; last owner and seat limit are explained', async () => {
    const owner = await freshOwner(stack, 'plus'); // 3 seats
    const { page, violations } = await signedIn(owner);
    await goTo(page, '/members', 'Members');
    const invitee = `viewer-${Date.now().toString(36)}@example.com`;
    await page.getByLabel('E-mail').fill(invitee);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    const asked = Date.now();
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: invitee });
    await row.getByText('Invited').waitFor();
    expect(await mailedLink(stack, invitee, asked)).toContain('/app/accept?token=');
    await page.getByRole('button', { name: `Resend invitation to ${invitee}` }).click();
    await page.getByText(`Invitation sent again to ${invitee}`).waitFor();
    // The last owner cannot demote themself: the API's 409 is shown, with what to do.
    await page.getByLabel(`Role of ${owner.email}`).selectOption('viewer');
    const lastOwner = page.getByRole('alert').filter({ hasText: /last owner/i });
    await lastOwner.waitFor();
    // What to do, said once.
    expect(((await lastOwner.innerText()).match(/owner first/gi) ?? []).length).toBe(1);
    // Seats: owner + invitation + one more = 3; a fourth is refused with the plan's message.
    await page.getByLabel('E-mail').fill(`third-${Date.now().toString(36)}@example.com`);
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
    await page.getByText(/^Invitation sent to third-/).waitFor();
    await page.getByLabel('E-mail').fill(`fourth-${Date.now().toString(36)}@example.com`);
    await page.getByRole('button', { name: 'Send invitation', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'No seat left' }).waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `members at ${w} px`));
    await page.getByRole('button', { name: `Cancel invitation of ${invitee}` }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel invitation' }).click();
    await page.getByText(`Invitation of ${invitee} cancelled`).waitFor();
    // The list reloads after the toast: wait for the row to go.
    await page.getByRole('row').filter({ hasText: invitee }).waitFor({ state: 'detached' });
    // The audit log shows the invitation, filtered by action.
    await goTo(page, '/audit', 'Audit log');
    await page.getByLabel('Action').fill('member.invited');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    // The unfiltered list (with the cancellation's member.removed) is on screen until the filtered answer arrives.
    await eventually(
      async () => (await page.getByRole('cell', { name: 'member.invited' }).count()) >= 2 && (await page.getByRole('cell', { name: 'member.removed' }).count()) === 0,
      10_000,
      'two member.invited entries and no other action',
    );
    // A filter the API refuses is named at its field, not as a page-level failure.
    await page.getByLabel('Action').fill('nonsense action!');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await eventually(async () => (await page.getByLabel('Action').getAttribute('aria-invalid')) === 'true', 10_000, 'the refusal at the Action field');
    expect(await page.getByText('Something went wrong').count()).toBe(0);
    expect(violations).toEqual([]);
  });

  it('trash: a trashed code is listed, restored, and scans again; a viewer sees no restore or create buttons', async () => {
    const owner = await freshOwner(stack);
    const code = await createCode(stack.api, owner.org, { name: 'Summer menu', target: { type: 'url', destination: 'https://example.com/menu' } });
    await http(stack.api.origin, 'DELETE', `/v1/qr-codes/${code.id}`, { key: owner.org.apiKey });
    const viewerEmail = `viewer-${Date.now().toString(36)}@example.com`;
    await addMember(stack.api, owner.org.organizationId, viewerEmail, 'viewer');
    // The viewer sees the Trash but cannot restore, and cannot create folders or webhooks.
    const viewer = await signedIn({ email: viewerEmail, password: PASSWORD });
    await goTo(viewer.page, '/trash', 'Trash');
    await viewer.page.getByRole('cell', { name: 'Summer menu', exact: true }).waitFor();
    expect(await viewer.page.getByRole('button', { name: /Restore/ }).count()).toBe(0);
    await goTo(viewer.page, '/folders', 'Folders');
    await viewer.page.getByText('Your role can view folders but not change them.').waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Create folder' }).count()).toBe(0);

    const { page, violations } = await signedIn(owner);
    await goTo(page, '/trash', 'Trash');
    await page.getByRole('cell', { name: 'Summer menu', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Restore Summer menu' }).click();
    await page.getByText('“Summer menu” restored').waitFor();
    await page.getByText('The Trash is empty.').waitFor();
    const live = await http(stack.api.origin, 'GET', `/v1/qr-codes/${code.id}`, { key: owner.org.apiKey });
    expect(live.status).toBe(200);
    expect(live.body.deleted_at ?? null).toBeNull();
    expect(violations).toEqual([]);
  });

  it('trash: deletes one code forever and empties the rest, each after a confirmation, by mouse and keyboard; paused codes stay', async () => {
    const owner = await freshOwner(stack);
    const key = owner.org;
    const make = (name: string) => createCode(stack.api, key, { name, target: { type: 'url', destination: `https://example.com/${encodeURIComponent(name)}` } });
    const [flyer, poster, banner, paused] = [await make('Old flyer'), await make('Old poster'), await make('Old banner'), await make('Paused sign')];
    for (const c of [flyer, poster, banner]) await http(stack.api.origin, 'DELETE', `/v1/qr-codes/${c.id}`, { key: key.apiKey });
    await db(stack.api).execute(`update qr_codes set status = 'paused', deleted_at = now() where id = ?`, [paused.id]);
    const trashedIds = async () => (await http(stack.api.origin, 'GET', '/v1/qr-codes?status=trashed', { key: key.apiKey })).body.data.map((c: { id: string }) => c.id).sort();

    // A viewer sees neither button.
    const viewerEmail = `viewer-${Date.now().toString(36)}@example.com`;
    await addMember(stack.api, key.organizationId, viewerEmail, 'viewer');
    const viewer = await signedIn({ email: viewerEmail, password: PASSWORD });
    await goTo(viewer.page, '/trash', 'Trash');
    await viewer.page.getByRole('cell', { name: 'Old flyer', exact: true }).waitFor();
    expect(await viewer.page.getByRole('button', { name: /Delete forever|Empty trash/ }).count()).toBe(0);

    const { page, violations } = await signedIn(owner);
    await goTo(page, '/trash', 'Trash');
    await page.getByRole('cell', { name: 'Old flyer', exact: true }).waitFor();

    // One code, by mouse: Cancel first changes nothing.
    await page.getByRole('button', { name: 'Delete forever Old flyer' }).click();
    let dialog = page.getByRole('alertdialog');
    await dialog.getByRole('heading', { name: 'Delete “Old flyer” forever?' }).waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `delete-forever confirmation at ${w} px`));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await trashedIds()).toEqual([flyer.id, poster.id, banner.id].sort());
    await page.getByRole('button', { name: 'Delete forever Old flyer' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete forever' }).click();
    await page.getByText('“Old flyer” deleted for good').waitFor();
    await page.getByRole('cell', { name: 'Old flyer', exact: true }).waitFor({ state: 'detached' });
    expect(await trashedIds()).toEqual([poster.id, banner.id].sort());
    expect((await http(stack.api.origin, 'POST', `/v1/qr-codes/${flyer.id}/restore`, { key: key.apiKey })).status).toBe(404);

    // The rest, by keyboard: Escape cancels, Enter on the dialog's button empties.
    const emptyButton = page.getByRole('button', { name: 'Empty trash' });
    await emptyButton.focus();
    await page.keyboard.press('Enter');
    dialog = page.getByRole('alertdialog');
    await dialog.getByRole('heading', { name: 'Empty the Trash?' }).waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `empty-trash confirmation at ${w} px`));
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await trashedIds()).toEqual([poster.id, banner.id].sort());
    await emptyButton.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Empty trash' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('Trash emptied: 2 codes deleted for good').waitFor();
    await page.getByText('The Trash is empty.').waitFor();
    expect(await page.getByRole('button', { name: 'Empty trash' }).count()).toBe(0);
    expect(await trashedIds()).toEqual([]);
    const stillPaused = await http(stack.api.origin, 'GET', '/v1/qr-codes?status=paused', { key: key.apiKey });
    expect(stillPaused.body.data.map((c: { id: string }) => c.id)).toEqual([paused.id]);
    expect(violations).toEqual([]);
  });

  it('templates: create from a design with the API preview, edit, delete; tags: rename a tag on its codes', async () => {
    const owner = await freshOwner(stack);
    const { page, violations } = await signedIn(owner);
    await goTo(page, '/templates', 'Templates');
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByLabel('Template name').fill('Dotted red');
    await page.getByLabel('Foreground colour').fill('#b3261e');
    await page.getByLabel('Module shape').selectOption('dots');
    const preview = page.getByRole('img', { name: 'Preview of Dotted red' });
    await preview.waitFor();
    await eventually(async () => (await preview.evaluate((i) => { const img = i as unknown as { complete: boolean; naturalWidth: number }; return img.complete ? img.naturalWidth : 0; })) > 0, 10_000, 'the preview image');
    expect(await preview.getAttribute('src')).toMatch(/^blob:/);
    // Too little contrast: the preview's refusal is shown at the colour inputs, bound to them.
    const background = page.getByLabel('Background colour');
    await background.fill('#c0392b');
    await eventually(async () => ((await background.getAttribute('aria-invalid')) === 'true' ? true : undefined), 10_000, 'the contrast error at the colour');
    const described = (await background.getAttribute('aria-describedby'))!.split(' ');
    expect((await page.locator(`[id="${described[described.length - 1]}"]`).textContent()) ?? '').toMatch(/contrast/i);
    await background.fill('#ffffff');
    await eventually(async () => ((await background.getAttribute('aria-invalid')) !== 'true' ? true : undefined), 10_000, 'the error gone');
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByRole('heading', { level: 3, name: 'Dotted red' }).waitFor();
    const saved = (await http(stack.api.origin, 'GET', '/v1/templates', { key: owner.org.apiKey })).body.data[0];
    expect(saved.design).toMatchObject({ colors: { foreground: '#b3261e' }, shapes: { body: 'dots' } });
    // The form left the level at its default, so it names none: a code made from the template with a logo gets H.
    const logo = await sharp({ create: { width: 40, height: 40, channels: 4, background: '#1b3a6b' } }).png().toBuffer();
    const withLogo = await createCode(stack.api, owner.org, { target: { type: 'url', destination: 'https://example.com/l' }, template_id: saved.id, design: { logo: { url: `data:image/png;base64,${logo.toString('base64')}` } } });
    expect((withLogo as unknown as { design: { error_correction: string } }).design.error_correction).toBe('H');
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `templates at ${w} px`));
    await page.getByRole('button', { name: 'Edit Dotted red' }).click();
    await page.getByLabel('Template name').fill('Dotted dark red');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { level: 3, name: 'Dotted dark red' }).waitFor();
    await page.getByRole('button', { name: 'Delete Dotted dark red' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete template' }).click();
    await page.getByText('No templates yet.').waitFor();

    // From a code's design: the parts the editor does not show (frame, eye colours, gradient) come along.
    const framed = await createCode(stack.api, owner.org, {
      name: 'Framed',
      target: { type: 'url', destination: 'https://example.com/f' },
      design: { frame: { style: 'banner_bottom', text: 'Scan me now' }, eye_colors: { frame: '#aa0000' }, gradient: { start: '#000000', end: '#1b3a6b', type: 'linear' } },
    });
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByLabel("Start from a code's design (code id)").fill(framed.id);
    await page.getByRole('button', { name: "Use this code's design" }).click();
    await eventually(async () => (await page.getByLabel('Template name').inputValue()) === 'Framed design', 10_000, 'the code design loaded');
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByRole('heading', { level: 3, name: 'Framed design' }).waitFor();
    const fromCode = (await http(stack.api.origin, 'GET', '/v1/templates', { key: owner.org.apiKey })).body.data[0];
    expect(fromCode.design).toMatchObject({ frame: { style: 'banner_bottom', text: 'Scan me now' }, eye_colors: { frame: '#aa0000' }, gradient: { start: '#000000', end: '#1b3a6b' } });

    // Tags: two codes carry "summer"; renaming it changes both.
    const a = await createCode(stack.api, owner.org, { name: 'A', target: { type: 'url', destination: 'https://example.com/a' }, tags: ['summer', 'print'] });
    const b = await createCode(stack.api, owner.org, { name: 'B', target: { type: 'url', destination: 'https://example.com/b' }, tags: ['summer'] });
    await goTo(page, '/tags', 'Tags');
    await page.getByRole('button', { name: 'summer (2)' }).click();
    await page.getByRole('heading', { name: 'Codes tagged “summer”' }).waitFor();
    await page.getByRole('link', { name: 'A', exact: true }).waitFor();
    await page.getByLabel('New tag name').fill('summer-2026');
    await page.getByRole('button', { name: 'Rename tag' }).click();
    await page.getByText('“summer” renamed to “summer-2026” on 2 code(s)').waitFor();
    for (const [id, tags] of [
      [a.id, ['summer-2026', 'print']],
      [b.id, ['summer-2026']],
    ] as const) {
      expect((await http(stack.api.origin, 'GET', `/v1/qr-codes/${id}`, { key: owner.org.apiKey })).body.tags).toEqual(tags);
    }
    expect(violations).toEqual([]);
  });
});
