import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { http } from '../setup/app';
import { addMember, PASSWORD, signIn } from '../setup/members';
import {
  expectNoSeriousA11yViolations,
  freshOwner,
  mailedLink,
  PHONE,
  useDashboardStack,
} from '../setup/browser';

/** Invitation acceptance, what a viewer may do, and the workspace switcher. */
describe('dashboard: invitations, roles and workspaces', () => {
  const stack = useDashboardStack(22);
  const { open } = stack;

  it('an invited viewer accepts in the browser, sees no way to create a code, and sees the API 403 when forcing one', async () => {
    const owner = await freshOwner(stack);
    const session = await signIn(stack.api, owner.email, owner.password);
    const viewerEmail = `viewer-${Date.now().toString(36)}@example.com`;
    const asked = Date.now();
    const invited = await http(stack.api.origin, 'POST', '/v1/members', { key: session.token, body: { email: viewerEmail, role: 'viewer' } });
    expect(invited.status).toBe(201);
    const link = await mailedLink(stack, viewerEmail, asked);
    expect(link.startsWith(`${stack.appUrl}/accept?token=`)).toBe(true);

    const { page, violations } = await open(PHONE);
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Join the workspace' }).waitFor();
    await expectNoSeriousA11yViolations(page, 'invitation at 375 px');
    await page.getByLabel('Your name (optional)').fill('Vera Viewer');
    await page.getByLabel('Choose a password (optional)').fill(PASSWORD);
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor();
    await page.locator('.who .role', { hasText: '(viewer)' }).waitFor();
    // Screens for admins and owners are not offered; opened anyway, they say so and request nothing (no 403).
    await page.getByRole('button', { name: 'Menu' }).click(); // 375 px: the navigation is behind the menu button
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Members', exact: true }).waitFor();
    expect([await nav.getByRole('link', { name: 'API keys', exact: true }).count(), await nav.getByRole('link', { name: 'Audit log', exact: true }).count()]).toEqual([0, 0]);
    expect(await nav.getByRole('link', { name: 'Members', exact: true }).count()).toBe(1);
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 403) refused.push(r.url());
    });
    await page.goto(`${stack.appUrl}/audit`);
    await page.getByText('Only admins and owners can read it.').waitFor();
    expect(await page.getByRole('table', { name: 'Audit log' }).count()).toBe(0);
    await page.goto(`${stack.appUrl}/api-keys`);
    await page.getByText('Only admins and owners manage API keys.').waitFor();
    expect(refused).toEqual([]);
    await page.goto(`${stack.appUrl}/codes`);
    await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor();
    // No create button on the list; the create screen says why and its button is disabled.
    expect(await page.getByRole('link', { name: 'Create a code' }).count()).toBe(0);
    await page.getByText('Viewers cannot create codes').waitFor();
    await page.goto(`${stack.appUrl}/codes/new`);
    await page.getByText('Your role in this workspace can view codes but not create them.').waitFor();
    const submit = page.getByRole('button', { name: 'Create the code' });
    expect(await submit.isDisabled()).toBe(true);
    // Forced anyway (the button re-enabled by hand): the API refuses and the app shows its answer.
    await page.getByLabel('Destination URL (required)').fill('https://example.com/forced');
    await page.evaluate("document.querySelector('button[type=submit]').disabled = false");
    await submit.click();
    await page.locator('.form-error').filter({ hasText: /scope|not allowed|permission|role/i }).waitFor();
    const codes = await http(stack.api.origin, 'GET', '/v1/qr-codes', { key: owner.org.apiKey });
    expect(codes.body.data).toEqual([]);
    // A code's settings are shown to a viewer, not offered for editing.
    const code = await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: owner.org.apiKey, body: { name: 'Read only', target: { type: 'url', destination: 'https://example.com/r' } } });
    await page.goto(`${stack.appUrl}/codes/${code.body.id}`);
    await page.getByRole('tab', { name: 'Settings' }).click();
    for (const label of ['Name', 'Destination URL (required)', 'Folder', 'Tags', 'Password', 'Expires', 'Maximum scans']) {
      expect({ label, disabled: await page.getByLabel(label, { exact: true }).isDisabled() }).toEqual({ label, disabled: true });
    }
    expect(await page.getByRole('button', { name: 'Save changes' }).count()).toBe(0);
    expect(violations).toEqual([]);
  });

  it("an admin manages members but is offered no action on an owner's row", async () => {
    const owner = await freshOwner(stack);
    const adminEmail = `admin-${Date.now().toString(36)}@example.com`;
    const editorEmail = `editor-${Date.now().toString(36)}@example.com`;
    await addMember(stack.api, owner.org.organizationId, adminEmail, 'admin');
    await addMember(stack.api, owner.org.organizationId, editorEmail, 'editor');
    const { page, violations } = await stack.signedIn({ email: adminEmail, password: PASSWORD });
    await page.getByRole('link', { name: 'Members', exact: true }).click();
    await page.getByRole('button', { name: `Remove ${editorEmail}` }).waitFor();
    expect(await page.getByRole('button', { name: `Remove ${owner.email}` }).count()).toBe(0);
    expect(await page.getByLabel(`Role of ${owner.email}`).count()).toBe(0);
    expect(violations).toEqual([]);
  });

  it('switches between the workspaces of one user from the header', async () => {
    const owner = await freshOwner(stack);
    const second = await freshOwner(stack);
    await addMember(stack.api, second.org.organizationId, owner.email, 'editor', null);
    await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: second.org.apiKey, body: { name: 'Second workspace code', target: { type: 'url', destination: 'https://example.com/2' } } });
    const { page, violations } = await stack.signedIn(owner);
    const switcher = page.getByLabel('Workspace', { exact: true });
    await switcher.waitFor();
    await expectNoSeriousA11yViolations(page, 'header with the workspace switcher');
    await switcher.selectOption(second.org.organizationId);
    await page.locator('.who .role', { hasText: '(editor)' }).waitFor();
    await page.getByRole('table', { name: 'QR codes' }).getByRole('link', { name: 'Second workspace code' }).waitFor();
    await switcher.selectOption(owner.org.organizationId);
    await page.locator('.who .role', { hasText: '(owner)' }).waitFor();
    await page.getByText('No codes yet.').waitFor();
    // Switching from a code's own page goes to the other workspace's list, without asking for that code there.
    const mine = await http(stack.api.origin, 'POST', '/v1/qr-codes', { key: owner.org.apiKey, body: { name: 'Own code', target: { type: 'url', destination: 'https://example.com/1' } } });
    await page.goto(`${stack.appUrl}/codes/${mine.body.id}`);
    await page.getByRole('heading', { level: 1, name: 'Own code' }).waitFor();
    const notFound: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 404) notFound.push(r.url());
    });
    await switcher.selectOption(second.org.organizationId);
    await page.locator('.who .role', { hasText: '(editor)' }).waitFor();
    await page.getByRole('table', { name: 'QR codes' }).getByRole('link', { name: 'Second workspace code' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/codes');
    expect(notFound).toEqual([]);
    expect(violations).toEqual([]);
  });

  it('creates an API key in the UI, shows its secret once, and the key works with curl until revoked', async () => {
    const owner = await freshOwner(stack);
    const { page, violations } = await stack.signedIn(owner);
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('CI pipeline');
    await page.getByRole('button', { name: 'Create the key' }).click();
    const secret = (await page.getByTestId('new-api-key').textContent())!.trim();
    expect(secret).toMatch(/^qr_live_[0-9A-Za-z]{32}$/);
    await expectNoSeriousA11yViolations(page, 'API keys with a new secret');
    // curl runs asynchronously: the api answering it lives in this very process.
    const curl = async (key: string) =>
      (await promisify(execFile)('curl', ['-s', '--max-time', '20', '-w', '\\n%{http_code}', '-H', `Authorization: Bearer ${key}`, `${stack.api.origin}/v1/qr-codes`], { encoding: 'utf8' })).stdout.trim().split('\n');
    const ok = await curl(secret);
    expect(ok[ok.length - 1]).toBe('200');
    expect(JSON.parse(ok.slice(0, -1).join('\n'))).toMatchObject({ object: 'list' });
    // Shown once: after Done it is gone from the page; the list shows its prefix only.
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    await page.getByRole('table', { name: 'API keys' }).getByText(`${secret.slice(0, 12)}…`).waitFor();
    await page.getByRole('button', { name: 'Revoke CI pipeline' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Key revoked').waitFor();
    const refused = await curl(secret);
    expect(refused[refused.length - 1]).toBe('401');
    expect(violations).toEqual([]);
  });
});
