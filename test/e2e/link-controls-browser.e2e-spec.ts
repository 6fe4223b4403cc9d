import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PAGE_CSS_HASH } from '../../src/modules/hosted-pages/layout';
import { openWatchedPage } from '../setup/browser';
import { createCode, createOrg, startApi, startScan, type TestApp, type TestOrg } from '../setup/app';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

/** The password flow of link controls in Debian's Chromium, on a 375 px wide phone screen. */
describe('password-protected code in a browser at 375 px', () => {
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let violations: string[];

  beforeAll(async () => {
    api = await startApi();
    scan = await startScan();
    org = await createOrg(api, { plan: 'pro' });
    ({ browser, context, page, violations } = await openWatchedPage({ viewport: { width: 375, height: 667 }, userAgent: IPHONE, isMobile: true, hasTouch: true }));
  });
  afterAll(async () => {
    await browser?.close();
    await scan?.close();
    await api?.close();
  });

  async function fitsTheScreen(): Promise<void> {
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    const button = await page.getByRole('button', { name: 'Continue' }).boundingBox();
    expect(button!.height).toBeGreaterThanOrEqual(44);
    expect(button!.width).toBeGreaterThan(300);
    const field = await page.getByLabel('Password').boundingBox();
    expect(field!.height).toBeGreaterThanOrEqual(40);
    expect(violations).toEqual([]);
    expect(await page.evaluate('window.__csp || []')).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
  }

  it('asks for the password, explains a wrong one, and opens the code for 12 hours after the right one', async () => {
    const code = await createCode(api, org, {
      target: { type: 'linkpage', title: 'Members area', links: [{ title: 'Handbook', url: 'https://example.com/handbook' }] },
      password: 'staff only 2026',
    });
    const first = await page.goto(`${scan.origin}/${code.short_code}`);
    expect(first!.status()).toBe(200);
    const headers = first!.headers();
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['content-security-policy']).toContain(`style-src '${PAGE_CSS_HASH}'`);
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, nofollow');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This code is protected');
    expect(await page.content()).not.toContain('Members area');
    await fitsTheScreen();

    // By keyboard: the field takes focus, Enter submits.
    await page.getByLabel('Password').focus();
    await page.keyboard.type('wrong guess');
    const [wrong] = await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(wrong!.status()).toBe(200); // the password page again, with the error
    expect(await page.getByRole('alert').textContent()).toContain('Wrong password');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Password').getAttribute('aria-describedby')).toBe('password-error');
    await fitsTheScreen();

    await page.getByLabel('Password').fill('staff only 2026');
    await Promise.all([page.waitForURL(`${scan.origin}/${code.short_code}`), page.getByRole('button', { name: 'Continue' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Members area');
    expect(await page.getByRole('link', { name: 'Handbook' }).getAttribute('href')).toBe('https://example.com/handbook');

    const [cookie] = (await context.cookies()).filter((c) => c.name === `scanlink_unlock_${code.short_code}`);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    const hours = (cookie.expires * 1000 - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(11.9);
    expect(hours).toBeLessThanOrEqual(12);

    // The cookie keeps the code open on the next visit; another protected code still asks.
    const again = await page.goto(`${scan.origin}/${code.short_code}`);
    expect(again!.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Members area');
    const other = await createCode(api, org, { target: { type: 'text', text: 'Other secret' }, password: 'another one' });
    await page.goto(`${scan.origin}/${other.short_code}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This code is protected');
  });

  /** axe-core's rules on the page as it is now (axe runs through the browser's debugging protocol, which the page's CSP
   * does not govern); the serious and critical violations, with their targets. */
  async function axeViolations(): Promise<string[]> {
    if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
    const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
      violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[];
      passes: unknown[];
    };
    expect(result.passes.length).toBeGreaterThan(0); // axe ran its rules on this page
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  }

  it('the password page (also after a wrong password) and the expired page pass axe at 375 px: no serious or critical violation', async () => {
    const code = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/axe' }, password: 'axe check 2026' });
    expect((await page.goto(`${scan.origin}/${code.short_code}`))!.status()).toBe(200);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This code is protected');
    expect(await axeViolations()).toEqual([]);

    await page.getByLabel('Password').fill('not the one');
    const [wrong] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Continue' }).click()]);
    expect(wrong!.status()).toBe(200); // the password page again, with the error
    expect(await page.getByRole('alert').textContent()).toContain('Wrong password');
    expect(await axeViolations()).toEqual([]);

    const expired = await createCode(api, org, { target: { type: 'url', destination: 'https://example.com/axe' }, max_scans: 1 });
    // The one scan it allows (not followed: the destination is off-site).
    expect((await fetch(`${scan.origin}/${expired.short_code}`, { redirect: 'manual', headers: { 'user-agent': IPHONE } })).status).toBe(302);
    expect((await page.goto(`${scan.origin}/${expired.short_code}`))!.status()).toBe(410);
    expect(await axeViolations()).toEqual([]);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  });
});
