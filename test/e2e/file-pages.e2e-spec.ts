import type { Browser, Page } from 'playwright-core';
import { openWatchedPage } from '../setup/browser';
import { createCode, createOrg, eventually, startApi, startScan, TestApp, TestOrg } from '../setup/app';
import { image, media, pdf, streamUpload } from '../setup/files';

/** The hosted pages of file, audio and video codes in a real headless Chromium, on a phone-sized screen: the browser's
 * own PDF viewer opens the PDF, players report a duration, the image loads, the download button downloads. */
describe('file, audio and video pages (headless Chromium, phone screen)', () => {
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;
  let browser: Browser;
  let page: Page;
  let problems: string[] = [];

  beforeAll(async () => {
    api = await startApi();
    scan = await startScan();
    org = await createOrg(api, { plan: 'pro' });
    ({ browser, page, violations: problems } = await openWatchedPage({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      acceptDownloads: true,
    }));
  });
  afterAll(async () => {
    await browser?.close();
    await scan?.close();
    await api?.close();
  });

  async function codeFor(type: string, filename: string, bytes: Buffer, title?: string) {
    const file = await streamUpload(api, org, bytes, 0, { filename });
    expect(file.status).toBe(201);
    return createCode(api, org, { target: { type, file_id: file.body.id, title, description: 'Scanned from the <poster>' } });
  }

  async function open(shortCode: string) {
    const res = await page.goto(`${scan.origin}/${shortCode}`);
    expect(res?.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toContain("media-src 'self'");
    return res!;
  }

  async function expectClean(): Promise<void> {
    expect(problems).toEqual([]);
    expect(await page.evaluate('window.__csp || []')).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    // Mobile-first: nothing wider than the phone's screen.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await page.locator('p.text').textContent()).toBe('Scanned from the <poster>');
  }

  const durationOf = (selector: string) =>
    eventually(async () => {
      const d = await page.locator(selector).evaluate((el) => (el as unknown as { duration: number }).duration);
      return Number.isFinite(d) && d > 0 ? d : undefined;
    }, 15_000, `${selector} duration`);

  it('opens a PDF in the browser\'s own viewer, with Open and Download buttons', async () => {
    const code = await codeFor('file', 'Menü «Herbst» 2026.pdf', pdf('Autumn menu'), 'Our <menu>');
    await open(code.short_code);
    expect(await page.locator('h1').textContent()).toBe('Our <menu>');
    expect(await page.title()).toBe('Our <menu>');
    // The <object> holds Chromium's PDF viewer (its extension frame) showing the file from this host.
    await eventually(async () => page.frames().some((f) => f.url().startsWith('chrome-extension://')) || undefined, 15_000, 'PDF viewer');
    expect(page.frames().some((f) => f.url() === `${scan.origin}/${code.short_code}/file`)).toBe(true);
    await expectClean();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('Menü «Herbst» 2026.pdf');
    // "Open" shows the PDF full screen, again in the viewer.
    await page.getByRole('link', { name: 'Open' }).click();
    await page.waitForURL(`${scan.origin}/${code.short_code}/file`);
    await eventually(async () => page.frames().some((f) => f.url().startsWith('chrome-extension://')) || undefined, 15_000, 'PDF viewer (full screen)');
  });

  it('shows an image', async () => {
    const code = await codeFor('file', 'photo.png', await image('png'));
    await open(code.short_code);
    expect(await page.locator('h1').textContent()).toBe('photo.png');
    await eventually(async () => (await page.locator('img.media').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)) === 16 || undefined, 10_000, 'image');
    await expectClean();
  });

  it.each([
    ['audio', 'tone.wav', 'audio'],
    ['audio', 'tone.ogg', 'audio'],
    ['audio', 'tone.mp3', 'audio'],
    ['video', 'clip.webm', 'video'],
    ['video', 'clip.mp4', 'video'],
  ])('plays %s from %s: the player reports its duration', async (type, fixture, element) => {
    const code = await codeFor(type, fixture, media(fixture));
    await open(code.short_code);
    expect(await page.locator(`${element}[controls]`).count()).toBe(1);
    expect(await durationOf(element)).toBeGreaterThan(0.9);
    await expectClean();
  });
});
