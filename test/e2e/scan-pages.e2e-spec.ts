import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REDIS } from '../../src/common/redis/redis.provider';
import { PAGE_CSS_HASH } from '../../src/modules/hosted-pages/layout';
import { openWatchedPage } from '../setup/browser';
import { createOrg, db, eventually, http, startApi, startScan, TestApp, TestOrg } from '../setup/app';

/**
 * Hosted pages and the lead form in a real headless Chromium: every page type through the scan process, the form's
 * labels and errors, what a post stores (leads row, lead_count, lead.captured) and what it refuses.
 */
describe('hosted pages and lead form (headless Chromium)', () => {
  const RATE_LIMIT = 4;
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: Server;
  let violations: string[] = [];
  let ipCounter = 10;
  /** A fresh client address per test (TEST-NET-3), so rate-limit buckets do not leak between tests. */
  const nextIp = () => `203.0.113.${ipCounter++}`;

  beforeAll(async () => {
    api = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    scan = await startScan({ LEAD_RATE_LIMIT_PER_HOUR: String(RATE_LIMIT) });
    org = await createOrg(api, { plan: 'pro' });
    receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    ({ browser, context, page, violations } = await openWatchedPage());
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => receiver?.close(r));
    await scan?.close();
    await api?.close();
  });

  const create = async (target: Record<string, unknown>) => {
    const res = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { name: `internal <b>name</b>`, target } });
    expect(res.status).toBe(201);
    return res.body as { id: string; short_code: string };
  };

  async function open(shortCode: string, ip = nextIp()) {
    await context.setExtraHTTPHeaders({ 'x-forwarded-for': ip });
    const res = await page.goto(`${scan.origin}/${shortCode}`);
    expect(res?.status()).toBe(200);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toContain(`style-src '${PAGE_CSS_HASH}'`);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(headers['cache-control']).toBe('no-store');
    return res!;
  }

  async function expectClean(): Promise<void> {
    expect(violations).toEqual([]);
    expect(await page.evaluate('window.__csp || []')).toEqual([]);
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
  }

  const leadCount = async (codeId: string) => {
    const rows = await db(api).execute<{ n: string }[]>('select count(*) as n from leads where qr_code_id = ?', [codeId]);
    return Number(rows[0].n);
  };

  const post = (shortCode: string, fields: Record<string, string>, ip: string) =>
    fetch(`${scan.origin}/${shortCode}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
      body: new URLSearchParams(fields).toString(),
    });

  it('renders every page type with its content, escapes hostile values and runs no script', async () => {
    const hostile = `<script>document.title='pwned'</script><img src=x onerror="document.title='pwned'">`;
    const codes = {
      text: await create({ type: 'text', text: `Hello ${hostile}` }),
      wifi: await create({ type: 'wifi', ssid: 'Cafe Guest', password: 'espresso-2026', encryption: 'WPA', hidden: true }),
      vcard: await create({ type: 'vcard', vcard: { your_name: 'Ada Lovelace', company_name: 'Engines Ltd', email: 'ada@example.com', phone_mobile: '+44 20 7946 0958' } }),
      event: await create({ type: 'event', title: 'Spring launch', location: 'Hall 2', start: '2026-05-01T18:00:00Z', end: '2026-05-01T20:00:00Z' }),
      email: await create({ type: 'email', email: 'hello@example.com', subject: 'Hi there' }),
      sms: await create({ type: 'sms', phone: '+15551234567', message: 'JOIN' }),
      review: await create({ type: 'review', review_page: { title: 'Review us', links: [{ platform: 'Google', url: 'https://g.page/r/example' }], feedback_email: 'care@example.com' } }),
      linkpage: await create({ type: 'linkpage', title: `Links ${hostile}`, description: 'All our places', links: [{ title: 'Shop', url: 'https://shop.example.com/' }] }),
      menupage: await create({ type: 'menupage', title: 'Menu', sections: [{ name: 'Drinks', items: [{ name: 'Flat white', price: 3.5, description: 'Double shot' }] }] }),
      appstores: await create({ type: 'appstores', ios_url: 'https://apps.apple.com/app/id1', android_url: 'https://play.google.com/store/apps/details?id=x', fallback_url: 'https://example.com/app' }),
    };

    await open(codes.text.short_code);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Message');
    expect(await page.locator('p.text').textContent()).toBe(`Hello ${hostile}`);
    expect(await page.content()).not.toContain('internal');
    await expectClean();

    await open(codes.wifi.short_code);
    expect(await page.locator('dd').allTextContents()).toEqual(['Cafe Guest', 'espresso-2026', 'WPA/WPA2', 'Yes: add it by its name']);
    await expectClean();

    await open(codes.vcard.short_code);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Ada Lovelace');
    expect(await page.getByRole('link', { name: 'Add to contacts' }).getAttribute('href')).toBe(`/${codes.vcard.short_code}.vcf`);
    expect(await page.getByRole('link', { name: /Call mobile/ }).getAttribute('href')).toBe('tel:+442079460958');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Add to contacts' }).click()]);
    expect(download.suggestedFilename()).toBe('Ada Lovelace.vcf'); // filename*= (UTF-8) wins over the ASCII fallback
    await expectClean();

    await open(codes.event.short_code);
    expect(await page.locator('dd').first().textContent()).toBe('Friday, 1 May 2026, 18:00 – 20:00 (UTC)');
    expect(await page.getByRole('link', { name: 'Add to calendar' }).getAttribute('href')).toBe(`/${codes.event.short_code}.ics`);
    await expectClean();

    await open(codes.email.short_code);
    expect(await page.getByRole('link', { name: 'Write the e-mail' }).getAttribute('href')).toBe('mailto:hello@example.com?subject=Hi%20there');
    await open(codes.sms.short_code);
    expect(await page.getByRole('link', { name: 'Write the message' }).getAttribute('href')).toBe('sms:+15551234567?body=JOIN');
    await open(codes.review.short_code);
    expect(await page.getByRole('link', { name: 'Google' }).getAttribute('href')).toBe('https://g.page/r/example');
    expect(await page.getByRole('link', { name: 'Send us private feedback' }).getAttribute('href')).toMatch(/^mailto:care@example\.com\?subject=/);
    await open(codes.linkpage.short_code);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Links ${hostile}`);
    expect(await page.getByRole('link', { name: 'Shop' }).getAttribute('href')).toBe('https://shop.example.com/');
    await expectClean();
    await open(codes.menupage.short_code);
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('Drinks');
    expect(await page.locator('.menu-item').innerText()).toMatch(/Flat white\s+Double shot\s+3\.50/);
    await open(codes.appstores.short_code);
    expect(await page.getByRole('link').evaluateAll((links) => links.map((a) => a.textContent))).toEqual([
      'Download on the App Store',
      'Get it on Google Play',
      'Continue on the website',
    ]);
    await expectClean();

    // The downloads: the vCard and iCalendar texts with their media types.
    const vcf = await fetch(`${scan.origin}/${codes.vcard.short_code}.vcf`);
    expect(vcf.headers.get('content-type')).toBe('text/vcard; charset=utf-8');
    expect(vcf.headers.get('content-disposition')).toMatch(/^attachment; filename="Ada-Lovelace\.vcf"/);
    expect(await vcf.text()).toMatch(/^BEGIN:VCARD\r\nVERSION:3\.0\r\n[\s\S]*FN:Ada Lovelace\r\n[\s\S]*END:VCARD\r\n$/);
    const ics = await fetch(`${scan.origin}/${codes.event.short_code}.ics`);
    expect(ics.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(await ics.text()).toMatch(/^BEGIN:VCALENDAR\r\n[\s\S]*SUMMARY:Spring launch\r\nDTSTART:20260501T180000Z\r\n[\s\S]*END:VCALENDAR\r\n$/);
    expect((await fetch(`${scan.origin}/${codes.text.short_code}.vcf`)).status).toBe(404);
  });

  it('downloads a card or event whatever its name holds, and keeps long menu prices and form labels on a 375 px screen', async () => {
    // An emoji across the 60th character of the name, and characters a filename*= value must percent-encode.
    const emoji = await create({ type: 'vcard', vcard: { your_name: `${'x'.repeat(59)}😀` } });
    const vcf = await fetch(`${scan.origin}/${emoji.short_code}.vcf`);
    expect(vcf.status).toBe(200);
    expect(vcf.headers.get('content-disposition')).toBe(`attachment; filename="${'x'.repeat(59)}.vcf"; filename*=UTF-8''${'x'.repeat(59)}%F0%9F%98%80.vcf`);
    const irish = await create({ type: 'event', title: "Seán O'Brien*(x)", start: '2026-05-01T18:00:00Z', end: '2026-05-01T19:00:00Z' });
    const ics = await fetch(`${scan.origin}/${irish.short_code}.ics`);
    expect(ics.status).toBe(200);
    expect(ics.headers.get('content-disposition')).toBe(`attachment; filename="Sean-O-Brien-x.ics"; filename*=UTF-8''Se%C3%A1n%20O%27Brien%2A%28x%29.ics`);

    await page.setViewportSize({ width: 375, height: 700 });
    try {
      const longPrice = '€ 18.50 per person (minimum two persons)';
      const menu = await create({ type: 'menupage', title: 'Lunch', sections: [{ name: 'Mains', items: [{ name: 'Wiener Schnitzel', price: longPrice, description: 'With potato salad' }] }] });
      await open(menu.short_code);
      expect(await page.locator('.price').textContent()).toBe(longPrice);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      // The price takes at most 45 % of the row and wraps there; the dish keeps the rest.
      const row = await page.locator('.menu-item').boundingBox();
      const dish = await page.locator('.menu-item > div').boundingBox();
      expect(dish!.width).toBeGreaterThanOrEqual(row!.width * 0.45);

      const word = 'Unterschriftsberechtigung'.repeat(4);
      const form = await create({ type: 'form', title: 'Sign up', fields: [{ name: 'name', label: word, type: 'text' }], consent_text: 'Einverständniserklärung'.repeat(5) });
      await open(form.short_code);
      await expect(page.getByLabel(word, { exact: true }).count()).resolves.toBe(1);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      await expectClean();
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  it('captures a lead: refuses a post without consent, stores a valid one and emits lead.captured without the IP', async () => {
    const hook = await http(api.origin, 'POST', '/v1/webhooks', {
      key: org.apiKey,
      body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, events: ['lead.captured'] },
    });
    expect(hook.status).toBe(201);
    const form = await create({
      type: 'form',
      title: 'Get the brochure',
      fields: [
        { name: 'name', label: 'Your name', type: 'text', required: true },
        { name: 'email', label: 'E-mail', type: 'email', required: true },
        { name: 'phone', label: 'Phone', type: 'phone' },
        { name: 'visit', label: 'Visit date', type: 'date' },
        { name: 'guests', label: 'Guests', type: 'number' },
        { name: 'message', label: 'Message', type: 'textarea' },
        { name: 'newsletter', label: 'Send me the newsletter', type: 'checkbox' },
      ],
      consent_text: 'I agree to be contacted about the brochure.',
    });
    const ip = nextIp();
    await open(form.short_code, ip);
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('E-mail').fill('ada@example.com');
    await page.getByLabel('Phone').fill('+44 20 7946 0958');
    await page.getByLabel('Visit date').fill('2026-06-01');
    await page.getByLabel('Guests').fill('3');
    await page.getByLabel('Message').fill('Two lines\nof text');
    await page.getByLabel('Send me the newsletter').check();
    expect(await page.getByLabel('Leave this field empty').count()).toBe(1);
    expect(await page.locator('#f-website').getAttribute('tabindex')).toBe('-1');
    expect((await page.locator('#f-website').boundingBox())!.x).toBeLessThan(-1000); // rendered off-screen
    await expectClean();

    // Without consent: 400, the form again with the values kept and the error tied to the checkbox.
    const refused = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send' }).click();
    expect((await refused).status()).toBe(400);
    await page.waitForLoadState();
    const consent = page.getByLabel('I agree to be contacted about the brochure.');
    expect(await consent.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await consent.getAttribute('aria-describedby')}`).textContent()).toBe('Tick this box to agree before sending the form.');
    expect(await page.getByRole('alert').textContent()).toContain('Consent');
    expect(await page.getByLabel('E-mail').inputValue()).toBe('ada@example.com');
    expect(await page.getByLabel('Message').inputValue()).toBe('Two lines\nof text');
    expect(await page.getByLabel('Send me the newsletter').isChecked()).toBe(true);
    await expectClean();
    expect(await leadCount(form.id)).toBe(0);

    // With consent: the thank-you page, one lead, the count on the code, and the event.
    await consent.check();
    const accepted = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Send' }).click();
    expect((await accepted).status()).toBe(200);
    await page.waitForLoadState();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Thank you');
    await expectClean();

    const rows = await db(api).execute<Array<{ id: string; organization_id: string; fields: Record<string, unknown>; scan_context: Record<string, unknown> }>>(
      'select id, organization_id, fields, scan_context from leads where qr_code_id = ?',
      [form.id],
    );
    expect(rows).toHaveLength(1);
    const fields = { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+442079460958', visit: '2026-06-01', guests: 3, message: 'Two lines\nof text', newsletter: true };
    expect(rows[0]).toMatchObject({ organization_id: org.organizationId, fields });
    expect(Object.keys(rows[0].scan_context).sort()).toEqual(['browser', 'city', 'country', 'device', 'os']);
    expect(rows[0].scan_context).toMatchObject({ browser: expect.stringMatching(/Chrom/), device: 'Desktop' });
    const stored = await db(api).execute<{ lead_count: number }[]>('select lead_count from qr_codes where id = ?', [form.id]);
    expect(stored[0].lead_count).toBe(1);
    const got = await http(api.origin, 'GET', `/v1/qr-codes/${form.id}`, { key: org.apiKey });
    expect(got.body.target.summary).toMatchObject({ title: 'Get the brochure', field_count: 7, lead_count: 1 });

    const events = await eventually(async () => {
      const res = await http(api.origin, 'GET', '/v1/events?type=lead.captured', { key: org.apiKey });
      return res.body.data?.length ? res.body.data : undefined;
    }, 10_000, 'lead.captured in the archive');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ object: 'event', type: 'lead.captured' });
    expect(events[0].data).toEqual({
      id: rows[0].id,
      object: 'lead',
      qr_code_id: form.id,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+442079460958',
      fields,
      scan_context: rows[0].scan_context,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(JSON.stringify(events[0])).not.toContain(ip);
    expect(JSON.stringify(rows)).not.toContain(ip);
  });

  it('validates each field by its type and stores nothing for a filled honeypot', async () => {
    const form = await create({
      type: 'form',
      title: 'Contact',
      fields: [
        { name: 'email', label: 'E-mail', type: 'email', required: true },
        { name: 'phone', label: 'Phone', type: 'phone' },
        { name: 'day', label: 'Day', type: 'date' },
        { name: 'count', label: 'Count', type: 'number' },
        { name: 'note', label: 'Note', type: 'text' },
      ],
    });
    const ip = nextIp();
    const bad = await post(form.short_code, { email: 'not-an-email', phone: 'call me', day: '2026-02-30', count: '3 apples', note: 'x'.repeat(1001), consent: 'yes', unknown: 'ignored' }, ip);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-security-policy')).toContain(PAGE_CSS_HASH);
    const html = await bad.text();
    for (const name of ['email', 'phone', 'day', 'count', 'note']) expect(html).toContain(`aria-describedby="f-${name}-error"`);
    expect(html).not.toContain('f-consent-error');
    expect(await leadCount(form.id)).toBe(0);

    const bot = await post(form.short_code, { email: 'bot@example.com', consent: 'yes', website: 'https://spam.example.com' }, ip);
    expect(bot.status).toBe(200);
    expect(await bot.text()).toContain('<h1>Thank you</h1>');
    expect(await leadCount(form.id)).toBe(0);

    const ok = await post(form.short_code, { email: 'ok@example.com', consent: 'yes', website: '', unknown: 'ignored' }, ip);
    expect(ok.status).toBe(200);
    const rows = await db(api).execute<Array<{ fields: unknown }>>('select fields from leads where qr_code_id = ?', [form.id]);
    expect(rows.map((r) => r.fields)).toEqual([{ email: 'ok@example.com', phone: null, day: null, count: null, note: null }]);
  });

  it('limits posts per client address and answers 404/410 for codes that take no posts', async () => {
    const form = await create({ type: 'form', title: 'Limited', fields: [{ name: 'email', label: 'E-mail', type: 'email' }] });
    const ip = nextIp();
    for (let i = 0; i < RATE_LIMIT; i++) expect((await post(form.short_code, { email: 'a@example.com' }, ip)).status).toBe(400);
    const limited = await post(form.short_code, { email: 'a@example.com', consent: 'yes' }, ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(await limited.text()).toContain('Too many submissions');
    // Another address is not affected; the limiter's keys hold a keyed hash, never the address.
    expect((await post(form.short_code, { email: 'a@example.com', consent: 'yes' }, nextIp())).status).toBe(200);
    const redis = scan.app.get<Redis>(REDIS);
    const keys = await redis.keys('scanlink:lead-rate:*');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.join(' ')).not.toContain('203.0.113');
    expect(keys.every((k) => /^scanlink:lead-rate:[0-9a-f]{64}$/.test(k))).toBe(true);

    const other = nextIp();
    const missing = await post('Zz99999', { consent: 'yes' }, other);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('This code does not exist');
    const link = await create({ type: 'url', destination: 'https://example.com/' });
    expect((await post(link.short_code, { consent: 'yes' }, other)).status).toBe(404);
    expect((await http(api.origin, 'PATCH', `/v1/qr-codes/${form.id}`, { key: org.apiKey, body: { is_active: false } })).status).toBe(200);
    const gone = await post(form.short_code, { email: 'a@example.com', consent: 'yes' }, other);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain('This code is no longer active');
    // The same pages on GET, from the scan process's hot path.
    const gonePage = await fetch(`${scan.origin}/${form.short_code}`);
    expect(gonePage.status).toBe(410);
    expect(gonePage.headers.get('content-security-policy')).toContain(PAGE_CSS_HASH);
    const missingPage = await fetch(`${scan.origin}/Zz99999`);
    expect(missingPage.status).toBe(404);
    expect(await missingPage.text()).toContain('This code does not exist');
    expect(await leadCount(form.id)).toBe(1);
  });
});
