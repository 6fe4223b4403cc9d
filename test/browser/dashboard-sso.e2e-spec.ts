import { randomBase62 } from '../../src/common/ids';
import { addMember } from '../setup/members';
import { startOidcProvider, type TestProvider } from '../setup/oidc';
import { freePort } from '../setup/processes';
import { atBothWidths, DESKTOP, expectNoSeriousA11yViolations, freshOwner, useDashboardStack } from '../setup/browser';

jest.setTimeout(300_000);

const CLIENT = { clientId: 'scanlink-dashboard', clientSecret: 'a-client-secret-for-browser-tests' };
const member = `ana-${randomBase62(8).toLowerCase()}@example.com`;

/** Single sign-on in Chromium: the sign-in screen's SSO button, a real OpenID Connect provider (oidc-provider, its
 * development login and consent pages), the api's callback, and the dashboard signed in on the page asked for. */
describe('dashboard: single sign-on', () => {
  let idp: TestProvider;
  let port: number;

  // The provider must know the api's callback address before the api starts, and the api the provider's.
  beforeAll(async () => {
    port = await freePort();
    idp = await startOidcProvider({
      ...CLIENT,
      redirectUri: `http://127.0.0.1:${port}/v1/session/sso/callback`,
      accounts: { ana: { email: member, email_verified: true } },
    });
  });
  const stack = useDashboardStack(34, {
    port: () => port,
    env: () => ({ OIDC_ISSUER_URL: idp.issuer, OIDC_CLIENT_ID: CLIENT.clientId, OIDC_CLIENT_SECRET: CLIENT.clientSecret }),
  });
  afterAll(async () => {
    await idp?.close();
  });

  it('signs a member in through the identity provider and returns to the screen asked for, signed in', async () => {
    const owner = await freshOwner(stack);
    await addMember(stack.api, owner.org.organizationId, member, 'editor', null);
    const { page, violations } = await stack.open(DESKTOP);

    // Signed out, a screen sends the browser to sign-in, which offers SSO (GET /v1/session/providers says sso: true).
    await page.goto(`${stack.appUrl}/folders`);
    const sso = page.getByRole('link', { name: 'Sign in with single sign-on' });
    await sso.waitFor();
    await atBothWidths(page, async (w) => expectNoSeriousA11yViolations(page, `sign-in with SSO at ${w} px`));
    await page.setViewportSize(DESKTOP);
    await sso.focus();
    await page.keyboard.press('Enter');

    // The provider's own pages: login (any password), then consent.
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.locator('input[name="login"]').fill('ana');
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('input[name="prompt"][value="consent"]').waitFor({ state: 'attached' });
    await page.locator('button[type="submit"]').click();

    // Back through the api's callback to the screen asked for, signed in as the member, with the member's role.
    await page.getByRole('heading', { level: 1, name: 'Folders' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/folders');
    await page.locator('.who', { hasText: member }).waitFor();
    await page.locator('.who .role', { hasText: '(editor)' }).waitFor();
    // The session token stays in memory: nothing in storage, and the refresh cookie is not readable by script.
    expect(await page.evaluate('JSON.stringify([Object.keys(localStorage), Object.keys(sessionStorage)])')).toBe('[[],[]]');
    expect(await page.evaluate<string>('document.cookie')).not.toContain('scanlink');
    // A reload keeps the session (a new token from the refresh cookie).
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Folders' }).waitFor();
    await page.locator('.who', { hasText: member }).waitFor();
    expect(violations).toEqual([]);
  });
});
