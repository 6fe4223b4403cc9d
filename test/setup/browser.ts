import { Browser, BrowserContext, BrowserContextOptions, chromium, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApiApp } from '../../src/app/bootstrap';
import { createOrg, eventually, isolatedRedisUrl, startScan, startWorker, testConfig, type TestApp, type TestOrg } from './app';
import { addMember, lastMailTo, mailDataDir, PASSWORD } from './members';
import { freePort } from './processes';

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

// ---------------------------------------------------------------------------------------------------------------
// The dashboard harness: the real api, scan host and worker (in this process, each on its own port, on a Redis
// database of the test file's own), a mail folder, Debian's Chromium, axe-core, and sign-in helpers.


export const PHONE = { width: 375, height: 740 } as const;
export const DESKTOP = { width: 1280, height: 800 } as const;

export interface DashboardStack {
  api: TestApp;
  scan: TestApp;
  worker: TestApp;
  /** LOCAL_DATA_DIR of the api: its mail lands in `<dataDir>/mail/*.eml`. */
  dataDir: string;
  /** http://127.0.0.1:<api port>/app */
  appUrl: string;
  close(): Promise<void>;
}

/**
 * Boots the three processes the dashboard needs. `redisDb` is the file's own Redis database (isolatedRedisUrl): the
 * scan stream and queues of this file stay apart from the others'. The api knows its own address (API_BASE_URL), so
 * the links it mails point at it, and the scan host's (SCAN_BASE_URL, IMAGE_BASE_URL), so short URLs scan for real.
 * `apiPort` (default: a free one) is for a test that must know the api's address first (an SSO provider's callback).
 */
export async function startDashboardStack(redisDb: number, overrides: Record<string, string> = {}, apiPort?: number): Promise<DashboardStack> {
  const REDIS_URL = isolatedRedisUrl(redisDb);
  const dataDir = mailDataDir();
  const scan = await startScan({ REDIS_URL, LOCAL_DATA_DIR: dataDir, ...overrides });
  const port = apiPort ?? (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const config = testConfig({ REDIS_URL, LOCAL_DATA_DIR: dataDir, API_BASE_URL: `${origin}/v1`, SCAN_BASE_URL: scan.origin, IMAGE_BASE_URL: `${scan.origin}/images`, ...overrides });
  const app: NestFastifyApplication = await createApiApp(config, { logLevel: process.env.TEST_LOG_LEVEL ?? 'silent' });
  await app.listen(port, '127.0.0.1');
  const api: TestApp = { app, config, origin, close: () => app.close() };
  const worker = await startWorker({ REDIS_URL, LOCAL_DATA_DIR: dataDir, SCAN_BASE_URL: scan.origin, IMAGE_BASE_URL: `${scan.origin}/images`, ...overrides });
  return {
    api,
    scan,
    worker,
    dataDir,
    appUrl: `${origin}/app`,
    close: async () => {
      await worker.close();
      await api.close();
      await scan.close();
    },
  };
}

export interface Owner {
  org: TestOrg;
  email: string;
  password: string;
}

let seq = 0;
/** A fresh workspace (plan pro by default) whose owner has a password. */
export async function freshOwner(stack: DashboardStack, plan: 'free' | 'plus' | 'pro' | 'ultra' | 'agency' = 'pro'): Promise<Owner> {
  const org = await createOrg(stack.api, { plan, name: `Workspace ${++seq}` });
  const email = `owner-${Date.now().toString(36)}-${seq}@example.com`;
  await addMember(stack.api, org.organizationId, email, 'owner');
  return { org, email, password: PASSWORD };
}

/**
 * A page of its own (a fresh browser context: no cookies) at the given viewport. Requests carry an address of their own
 * in X-Forwarded-For (the test api trusts loopback proxies), so sign-in limits per address do not trip across tests.
 */
export async function openDashboardPage(viewport: { width: number; height: number } = DESKTOP, context: BrowserContextOptions = {}): Promise<WatchedPage> {
  const watched = await openWatchedPage({ ...context, viewport });
  await watched.context.setExtraHTTPHeaders({ 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250) + 1}` });
  return watched;
}

/** What a browser test file works with: the stack (the api, scan host and worker), plus pages it closes for you. */
export interface DashboardHarness extends DashboardStack {
  /** A fresh page (its own browser and context) at `viewport` (default 1280 px), closed after the file's tests;
   * `context` sets the rest of the browser context (e.g. `timezoneId`). */
  open(viewport?: { width: number; height: number }, context?: BrowserContextOptions): Promise<WatchedPage>;
  /** `open`, then signed in with e-mail and password (signInWithPassword). */
  signedIn(who: { email: string; password: string }, viewport?: { width: number; height: number }, context?: BrowserContextOptions): Promise<WatchedPage>;
}

export interface DashboardStackOptions {
  /** Environment for the three processes, read when the stack starts (after the file's earlier beforeAll hooks). */
  env?: () => Record<string, string>;
  /** The api's port, read when the stack starts; default: a free one. */
  port?: () => number;
}

/**
 * The set-up every browser test file shares: call it in the `describe` body. A `beforeAll` starts the dashboard stack
 * on the file's own Redis database (`redisDb`: 20 and up, one per file) and an `afterAll` closes every page opened
 * through it, then the stack. The answer is the stack itself (usable once the hooks ran: `stack.api`, `stack.appUrl`,
 * freshOwner(stack), …) with `open` and `signedIn`. Hooks a file registers before this call run before the stack starts
 * (so `env` can name a server they started); its own `afterAll` hooks run after this one's.
 */
export function useDashboardStack(redisDb: number, options: DashboardStackOptions = {}): DashboardHarness {
  let started: DashboardStack | undefined;
  const pages: WatchedPage[] = [];
  const stack = (): DashboardStack => {
    if (!started) throw new Error('the dashboard stack is started by useDashboardStack in beforeAll: use it inside hooks and tests');
    return started;
  };
  beforeAll(async () => {
    started = await startDashboardStack(redisDb, options.env?.() ?? {}, options.port?.());
  }, 120_000);
  afterAll(async () => {
    for (const p of pages.splice(0)) await p.browser.close().catch(() => undefined);
    await started?.close();
    started = undefined;
  });
  const open = async (viewport: { width: number; height: number } = DESKTOP, context: BrowserContextOptions = {}): Promise<WatchedPage> => {
    const p = await openDashboardPage(viewport, context);
    pages.push(p);
    return p;
  };
  const harness: DashboardHarness = {
    get api() {
      return stack().api;
    },
    get scan() {
      return stack().scan;
    },
    get worker() {
      return stack().worker;
    },
    get dataDir() {
      return stack().dataDir;
    },
    get appUrl() {
      return stack().appUrl;
    },
    close: () => stack().close(),
    open,
    signedIn: async (who, viewport, context) => {
      const p = await open(viewport, context);
      await signInWithPassword(p.page, harness, who);
      return p;
    },
  };
  return harness;
}

/** Signs in through the sign-in screen with e-mail and password and waits for the codes list. */
export async function signInWithPassword(page: Page, stack: DashboardStack, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${stack.appUrl}/sign-in`);
  await page.getByLabel('E-mail').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'QR codes' }).waitFor();
}

/** The newest link the api mailed to `to` (the local mail folder), waiting for it. */
export async function mailedLink(stack: DashboardStack, to: string, since = 0): Promise<string> {
  return eventually(
    async () => {
      const mail = lastMailTo(stack.dataDir, to);
      const link = /https?:\/\/\S+?[?&]token=[0-9A-Za-z]+/.exec(mail ?? '')?.[0];
      return link && Date.now() >= since ? link : undefined;
    },
    20_000,
    `a mail to ${to}`,
  );
}

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown; failureSummary?: string }> }>;
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core on the page (WCAG 2.x A and AA rules) and fails with a readable list when any violation is serious or
 * critical. axe is evaluated through the browser driver, not a script tag, so the page's CSP still applies to the app.
 */
export async function expectNoSeriousA11yViolations(page: Page, where: string): Promise<void> {
  await page.evaluate(AXE_SOURCE + '\n;undefined');
  const result = await page.evaluate<AxeResult>(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] })`,
  );
  const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = serious.map((v) => `${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`).join('\n  ')}`);
  expect({ where, violations: report }).toEqual({ where, violations: [] });
}

/** Runs `check` at 375 px and at 1280 px wide (the page is resized in place); at
 * each width the page itself must not scroll sideways (a wide table scrolls inside its own frame). */
export async function atBothWidths(page: Page, check: (width: number) => Promise<void>): Promise<void> {
  for (const size of [PHONE, DESKTOP]) {
    await page.setViewportSize(size);
    await check(size.width);
    await expectNoSidewaysScroll(page, `${new URL(page.url()).pathname} at ${size.width} px`);
  }
}

/** Fails when the document is wider than the window, naming the outermost elements that stick out (those inside a
 * frame that scrolls or clips sideways, such as a wide table's, do not widen the page and are left out). */
export async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const found = await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const sticksOut = (el) => el.getBoundingClientRect().right > width + 1;
    const clipped = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') return true;
      }
      return false;
    };
    const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (!sticksOut(el) || clipped(el) || (el.parentElement && el.parentElement !== document.body && sticksOut(el.parentElement))) continue;
      out.push(name(el) + ' right=' + Math.round(el.getBoundingClientRect().right) + ' "' + (el.textContent || '').trim().slice(0, 40) + '"');
    }
    return out.length ? out.slice(0, 8) : ['the document is ' + document.documentElement.scrollWidth + ' px wide'];
  })()`);
  expect({ where, overflowing: found }).toEqual({ where, overflowing: [] });
}
