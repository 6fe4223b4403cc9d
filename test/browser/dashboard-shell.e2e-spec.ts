import { createCode, http } from '../setup/app';
import {
  atBothWidths,
  expectNoSeriousA11yViolations,
  freshOwner,
  mailedLink,
  PHONE,
  useDashboardStack,
} from '../setup/browser';

/** The dashboard at /app/: how the api serves it, signing in and out, and the shell every screen lives in. */
describe('dashboard: serving, sign-in and shell', () => {
  const stack = useDashboardStack(20);
  const { open } = stack;

  describe('GET /app/', () => {
    it('answers index.html, not cached, with a CSP that allows no inline script', async () => {
      const res = await fetch(`${stack.api.origin}/app/codes/qr_whatever`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await res.text();
      expect(html).toContain('<div id="root">');
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    });

    it('serves hashed assets immutable, with exactly one Cache-Control; a missing asset is a 404, not the page', async () => {
      const html = await (await fetch(`${stack.api.origin}/app/`)).text();
      const src = /<script[^>]*src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(src).toBeDefined();
      const res = await fetch(`${stack.api.origin}${src}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const missing = await fetch(`${stack.api.origin}/app/assets/index-doesnotexist.js`);
      expect(missing.status).toBe(404);
      // In the error envelope with its Request-Id, like every other answer of the api.
      const body = (await missing.json()) as { error: { code: string; request_id: string } };
      expect(body.error).toMatchObject({ code: 'not_found', request_id: missing.headers.get('request-id') });
      expect(missing.headers.get('cache-control')).toBe('no-store');
    });

    it('sends browsers from / to /app/; API clients keep the JSON pointer', async () => {
      const browser = await fetch(`${stack.api.origin}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
      expect(browser.status).toBe(302);
      expect(browser.headers.get('location')).toBe('/app/');
      const client = await http(stack.api.origin, 'GET', '/', { headers: { accept: 'application/json' } });
      expect(client.status).toBe(200);
      expect(client.body).toMatchObject({ object: 'api', name: 'Scanlink API' });
    });
  });

  describe('sign-in', () => {
    it('signs in by an e-mail link read from the mail folder, keeping the token in memory only', async () => {
      const owner = await freshOwner(stack);
      const { page, violations } = await open(PHONE);
      await page.goto(`${stack.appUrl}/codes`);
      // Not signed in: the sign-in screen, which remembers where the visitor was going.
      await page.getByRole('heading', { level: 1, name: 'Sign in to Scanlink' }).waitFor();
      expect(new URL(page.url()).searchParams.get('next')).toBe('/codes');
      await expectNoSeriousA11yViolations(page, 'sign-in at 375 px');
      await page.getByRole('button', { name: 'Sign in with an e-mail link instead' }).click();
      await page.getByLabel('E-mail').fill(owner.email);
      const asked = Date.now();
      await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
      await page.getByText('a sign-in link is on its way').waitFor();
      const link = await mailedLink(stack, owner.email, asked);
      expect(link.startsWith(`${stack.appUrl}/sign-in?token=`)).toBe(true);
      await page.goto(link);
      await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor();
      // The JWT is nowhere in storage; the refresh cookie is httpOnly.
      const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie');
      expect(stored).not.toMatch(/eyJ/);
      const cookies = await page.context().cookies();
      expect(cookies.find((c) => c.name === 'scanlink_refresh')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
      // A reload keeps the session (refresh cookie → new token in memory).
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor();
      expect(violations).toEqual([]);
    });

    it('shows the API error of a wrong password at the form, and no SSO button when none is configured', async () => {
      const owner = await freshOwner(stack);
      const { page } = await open();
      await page.goto(`${stack.appUrl}/sign-in`);
      await page.getByLabel('E-mail').fill(owner.email);
      await page.getByLabel('Password').fill('not the password at all');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: /password/i }).waitFor();
      expect(await page.getByRole('link', { name: /single sign-on/i }).count()).toBe(0);
    });
  });

  describe('shell', () => {
    it('has a skip link, navigation to every screen, visible focus and no serious axe violations at 375 and 1280 px', async () => {
      const owner = await freshOwner(stack);
      const { page, violations } = await stack.signedIn(owner);
      await atBothWidths(page, async (width) => {
        await page.goto(`${stack.appUrl}/codes`);
        await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor();
        await expectNoSeriousA11yViolations(page, `codes list at ${width} px`);
        // Keyboard: the first Tab reaches the skip link, which moves focus to the main region.
        await page.keyboard.press('Tab');
        expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Skip to main content');
        const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
        expect(outline).not.toBe('none');
        await page.keyboard.press('Enter');
        expect(await page.evaluate<string>('document.activeElement.id')).toBe('main');
        if (width < 800) await page.getByRole('button', { name: 'Menu' }).click();
        const nav = page.getByRole('navigation', { name: 'Main' });
        for (const name of ['QR codes', 'Analytics', 'Batches', 'Folders', 'Tags', 'Templates', 'Domains', 'Webhooks', 'Events', 'API keys', 'Members', 'Audit log', 'Trash']) {
          await expect(nav.getByRole('link', { name, exact: true }).isVisible()).resolves.toBe(true);
        }
        // Every screen loads (on demand) and has its heading.
        await nav.getByRole('link', { name: 'Trash', exact: true }).click();
        await page.getByRole('heading', { level: 1, name: 'Trash' }).waitFor();
      });
      expect(violations).toEqual([]);
    });

    it('shows a 503 with a Retry that waits out Retry-After, never a blank screen', async () => {
      const owner = await freshOwner(stack);
      const { page, violations } = await stack.signedIn(owner);
      let failures = 1;
      await page.route('**/v1/qr-codes?*', async (route) => {
        if (failures-- > 0) {
          await route.fulfill({ status: 503, headers: { 'content-type': 'application/json', 'retry-after': '2' }, body: JSON.stringify({ error: { code: 'service_unavailable', message: 'A backing service is unavailable', request_id: 'req_test' } }) });
        } else await route.continue();
      });
      await page.goto(`${stack.appUrl}/codes`);
      const alert = page.getByRole('alert').filter({ hasText: 'Service unavailable' });
      await alert.waitFor();
      const retry = alert.getByRole('button', { name: /Retry/ });
      expect(await retry.isDisabled()).toBe(true);
      await alert.getByRole('button', { name: 'Retry', exact: true }).waitFor();
      await retry.click();
      await page.getByText('No codes yet.').waitFor();
      await page.unroute('**/v1/qr-codes?*');
      expect(violations).toEqual([]);
    });

    it('on a 401 refreshes the session once and retries; when the refresh fails too, returns to sign-in', async () => {
      const owner = await freshOwner(stack);
      const { page } = await stack.signedIn(owner);
      const refreshes: number[] = [];
      page.on('request', (r) => r.url().endsWith('/v1/session/refresh') && refreshes.push(Date.now()));
      let rejected = 1;
      // Away to a screen that does not list codes (Trash does), and back: the codes list's call gets the 401.
      await page.route('**/v1/qr-codes?*', async (route) => {
        if (rejected-- > 0) await route.fulfill({ status: 401, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { code: 'unauthorized', message: 'expired', request_id: 'req_test' } }) });
        else await route.continue();
      });
      await page.getByRole('link', { name: 'Folders', exact: true }).click();
      await page.getByRole('link', { name: 'QR codes', exact: true }).click();
      await page.getByText('No codes yet.').waitFor();
      expect(refreshes).toHaveLength(1);
      // Now every list call is refused and so is the refresh: back to sign-in, remembering the page.
      await page.unroute('**/v1/qr-codes?*');
      await page.route('**/v1/qr-codes?*', (route) => route.fulfill({ status: 401, headers: { 'content-type': 'application/json' }, body: '{"error":{"code":"unauthorized","message":"expired","request_id":"req_test"}}' }));
      await page.route('**/v1/session/refresh', (route) => route.fulfill({ status: 401, headers: { 'content-type': 'application/json' }, body: '{"error":{"code":"unauthorized","message":"no session","request_id":"req_test"}}' }));
      await page.getByRole('link', { name: 'Folders', exact: true }).click();
      await page.getByRole('link', { name: 'QR codes', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in to Scanlink' }).waitFor();
      expect(new URL(page.url()).searchParams.get('next')).toBe('/codes');
    });

    it('keeps the session when a refresh gets no answer (a 503, the network down): a Retry, not the sign-in screen', async () => {
      const owner = await freshOwner(stack);
      const { page, violations } = await stack.signedIn(owner);
      const json = (status: number, code: string, headers: Record<string, string> = {}) => ({
        status,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ error: { code, message: code === 'unauthorized' ? 'expired' : 'A backing service is unavailable', request_id: 'req_test' } }),
      });
      // A 401 whose refresh meets a 503: the list shows the 503 with its Retry; the person stays signed in.
      let rejected = 1;
      await page.route('**/v1/qr-codes?*', async (route) => (rejected-- > 0 ? route.fulfill(json(401, 'unauthorized')) : route.continue()));
      let unavailable = 1;
      await page.route('**/v1/session/refresh', async (route) => (unavailable-- > 0 ? route.fulfill(json(503, 'service_unavailable', { 'retry-after': '1' })) : route.continue()));
      await page.getByRole('link', { name: 'Folders', exact: true }).click();
      await page.getByRole('link', { name: 'QR codes', exact: true }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Service unavailable' });
      await alert.waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/codes');
      await alert.getByRole('button', { name: 'Retry', exact: true }).click();
      await page.getByText('No codes yet.').waitFor();
      await page.unroute('**/v1/qr-codes?*');
      await page.unroute('**/v1/session/refresh');

      // A reload while the API cannot be reached: "Cannot reach the API" with a Retry, then signed in again.
      await page.route('**/v1/session/refresh', (route) => route.abort('connectionrefused'));
      await page.reload();
      const offline = page.getByRole('alert').filter({ hasText: 'Cannot reach the API' });
      await offline.waitFor();
      await expectNoSeriousA11yViolations(page, 'session unavailable');
      await page.unroute('**/v1/session/refresh');
      await offline.getByRole('button', { name: 'Retry', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/codes');
      expect(violations).toEqual([]);
    });

    it('pages the codes list by cursor, 25 codes at a time, never asking for them all', async () => {
      const owner = await freshOwner(stack);
      for (let i = 1; i <= 27; i++) await createCode(stack.api, owner.org, { name: `Code ${String(i).padStart(2, '0')}`, target: { type: 'url', destination: `https://example.com/${i}` } });
      const { page } = await stack.signedIn(owner);
      const asked: URL[] = [];
      page.on('request', (r) => r.url().includes('/v1/qr-codes?') && asked.push(new URL(r.url())));
      await page.goto(`${stack.appUrl}/codes`);
      const table = page.getByRole('table', { name: 'QR codes' });
      await table.getByRole('link', { name: 'Code 27' }).waitFor();
      expect(await table.getByRole('row').count()).toBe(26); // the header and 25 codes, newest first
      const pages = page.getByRole('navigation', { name: 'QR codes pages' });
      await pages.getByRole('button', { name: 'Next' }).click();
      await table.getByRole('link', { name: 'Code 01' }).waitFor();
      expect(await table.getByRole('row').count()).toBe(3);
      expect(asked.every((u) => u.searchParams.get('limit') === '25')).toBe(true);
      expect(asked[asked.length - 1].searchParams.get('cursor')).toBeTruthy();
      await pages.getByRole('button', { name: 'Previous' }).click();
      await table.getByRole('link', { name: 'Code 27' }).waitFor();
    });

    it('signs out: the refresh cookie no longer works and the app returns to sign-in', async () => {
      const owner = await freshOwner(stack);
      const { page } = await stack.signedIn(owner);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign in to Scanlink' }).waitFor();
      await page.goto(`${stack.appUrl}/codes`);
      await page.getByRole('heading', { level: 1, name: 'Sign in to Scanlink' }).waitFor();
    });

    it('signs out everywhere: a session in another browser ends too', async () => {
      const owner = await freshOwner(stack);
      const here = await stack.signedIn(owner);
      const elsewhere = await stack.signedIn(owner);
      await here.page.getByRole('link', { name: 'Members', exact: true }).click();
      await here.page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await here.page.getByRole('heading', { level: 1, name: 'Sign in to Scanlink' }).waitFor();
      // The other browser's refresh cookie was revoked: after a reload it cannot restore its session.
      await elsewhere.page.goto(`${stack.appUrl}/codes`);
      await elsewhere.page.getByRole('heading', { level: 1, name: 'Sign in to Scanlink' }).waitFor();
      expect([...here.violations, ...elsewhere.violations]).toEqual([]);
    });
  });
});
