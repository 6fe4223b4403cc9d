import { Browser, BrowserContext, BrowserContextOptions, chromium, Page } from 'playwright-core';

export interface WatchedPage {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** CSP refusals and page errors seen so far (console messages and uncaught errors). */
  violations: string[];
}

/**
 * Debian's headless Chromium through playwright-core (no browser is downloaded) with one page whose CSP violations and
 * errors are collected: in `violations`, and in `window.__csp` (init scripts come from the driver, not the page, so
 * the page's CSP allows them).
 */
export async function openWatchedPage(options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const context = await browser.newContext(options);
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => (window.__csp = window.__csp || []).push(e.violatedDirective + ' ' + e.blockedURI));`,
  });
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/content security policy|refused to/i.test(m.text())) violations.push(m.text());
  });
  page.on('pageerror', (e) => violations.push(e.message));
  return { browser, context, page, violations };
}
