import { vcardPayload, veventPayload } from '../targets/encoders';
import { hostedPage } from '../targets/registry';
import type { HostedResponse, ScannedCode } from './hosted-response';
import { renderFormPage, renderThankYouPage, renderTooManyRequestsPage } from './form-page';
import { expectPageHeaders } from './testing/expect-page-headers';

type CachedCode = ScannedCode & { organizationId: string; name: string; type: string; status: string; isActive: boolean };
/** The page (suffix '') or download a scan of `c` answers, as the registry gives it to the scan host. */
const renderHostedPage = (c: CachedCode, r: { suffix: string }): HostedResponse | null => hostedPage(c.type, c, r.suffix);

const HOSTILE = `<script>alert(1)</script>"'&<img src=x onerror=alert(1)>`;
const EVIL_URL = 'javascript:alert(document.cookie)';
const req = { suffix: '' };

const code = (type: string, target: Record<string, unknown>): CachedCode => ({
  id: 'qr_0123456789abcdefghij',
  organizationId: 'org_0123456789abcdefghij',
  shortCode: 'AbC1234',
  name: `name ${HOSTILE}`,
  type,
  target,
  status: 'live',
  isActive: true,
});

/** Every page type with a hostile value in each text field and a javascript: URL in each URL field. */
const HOSTILE_CODES: Record<string, CachedCode> = {
  wifi: code('wifi', { ssid: HOSTILE, password: HOSTILE, encryption: 'WPA', hidden: true }),
  text: code('text', { text: HOSTILE }),
  vcard: code('vcard', {
    vcard: { your_name: HOSTILE, company_name: HOSTILE, position: HOSTILE, email: null, phone_mobile: '+4915112345678', phone_work: null, website: EVIL_URL, address: HOSTILE, note: HOSTILE },
  }),
  event: code('event', { title: HOSTILE, location: HOSTILE, start: '2026-05-01T18:00:00.000Z', end: '2026-05-01T20:00:00.000Z', description: HOSTILE }),
  email: code('email', { email: 'a@example.com', subject: HOSTILE, message: HOSTILE, cc: [], bcc: [] }),
  sms: code('sms', { phone: '+15551234567', message: HOSTILE }),
  review: code('review', { review_page: { title: HOSTILE, links: [{ platform: HOSTILE, url: EVIL_URL }, { platform: 'Google', url: 'https://g.page/r/x' }], feedback_email: 'f@example.com' } }),
  linkpage: code('linkpage', { title: HOSTILE, description: HOSTILE, links: [{ title: HOSTILE, url: EVIL_URL }, { title: 'Shop', url: 'https://shop.example.com/?a=1&b="2"' }] }),
  menupage: code('menupage', { title: HOSTILE, sections: [{ name: HOSTILE, items: [{ name: HOSTILE, price: HOSTILE, description: HOSTILE }, { name: 'Tea', price: 2.5, description: null }] }] }),
  form: code('form', { title: HOSTILE, fields: [{ name: 'email', label: HOSTILE, type: 'email', required: true }, { name: 'notes', label: 'Notes', type: 'textarea', required: false }], consent_text: HOSTILE }),
  appstores: code('appstores', { ios_url: EVIL_URL, android_url: 'https://play.google.com/store/apps/details?id=x', fallback_url: 'data:text/html,<script>alert(1)</script>' }),
};

const html = (r: HostedResponse | null): string => {
  expect(r).not.toBeNull();
  return String(r!.body);
};

function expectSafe(body: string): void {
  expect(body).not.toMatch(/<script/i);
  expect(body).not.toMatch(/<img/i);
  // No event-handler attribute in any tag (attribute values, where quotes are escaped, blanked first).
  expect(body.replace(/"[^"]*"/g, '""')).not.toMatch(/<[a-z][^>]*\son\w+=/i);
  expect(body).not.toMatch(/javascript:/i);
  expect(body).not.toMatch(/ style=/i);
  for (const [, href] of body.matchAll(/href="([^"]*)"/g)) {
    expect(href).toMatch(/^(https?:|mailto:|tel:|sms:|\/[A-Za-z0-9]{7}\.(vcf|ics)$|#f-[a-z0-9_]+$|data:,$)/);
  }
}


describe('hosted pages', () => {
  it.each(Object.keys(HOSTILE_CODES))('escapes hostile values and drops unsafe links on the %s page', (type) => {
    const r = renderHostedPage(HOSTILE_CODES[type], req)!;
    const body = html(r);
    expect(r.status).toBe(200);
    expectPageHeaders(r);
    expectSafe(body);
    expect(body).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(body).toMatch(/<h1>/);
    // The internal code name is never shown to visitors.
    expect(body).not.toContain('name &lt;script');
  });

  it('shows the escaped text of hostile values, quotes included', () => {
    const body = html(renderHostedPage(HOSTILE_CODES.text, req));
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;&lt;img src=x onerror=alert(1)&gt;');
    const links = html(renderHostedPage(HOSTILE_CODES.linkpage, req));
    expect(links).toContain('href="https://shop.example.com/?a=1&amp;b=&quot;2&quot;"');
  });

  it('keeps only the safe links of a page', () => {
    const apps = html(renderHostedPage(HOSTILE_CODES.appstores, req));
    expect(apps).toContain('Get it on Google Play');
    expect(apps).not.toContain('App Store');
    expect(apps).not.toContain('Continue on the website');
    const review = html(renderHostedPage(HOSTILE_CODES.review, req));
    expect(review).toContain('href="https://g.page/r/x"');
    expect(review).toContain('href="mailto:f@example.com?subject=');
    expect(review.match(/class="button/g)).toHaveLength(2);
  });

  it('builds the form: typed controls with labels, required consent, hidden honeypot, POST to the same path', () => {
    const body = html(renderHostedPage(HOSTILE_CODES.form, req));
    expect(body).toContain('<form method="post" action="/AbC1234"');
    expect(body).toMatch(/<label for="f-email">&lt;script/);
    expect(body).toMatch(/<input type="email" id="f-email" name="email"[^>]* required/);
    expect(body).toMatch(/<textarea id="f-notes" name="notes"/);
    expect(body).toMatch(/<input type="checkbox" id="f-consent" name="consent"[^>]* required/);
    expect(body).toMatch(/<div class="hp" aria-hidden="true">[\s\S]*<input type="text" id="f-website" name="website" value="" tabindex="-1" autocomplete="off">/);
  });

  it('re-renders the form with the submitted values and each error tied to its field', () => {
    const r = renderFormPage(HOSTILE_CODES.form, { values: { email: HOSTILE, notes: HOSTILE }, errors: { email: 'Enter a valid e-mail address', consent: 'Tick this box to send the form' } }, 400)!;
    expect(r.status).toBe(400);
    const body = html(r);
    expectSafe(body);
    expectPageHeaders(r);
    expect(body).toMatch(/id="f-email" name="email" value="&lt;script&gt;[^"]*"[^>]*aria-invalid="true" aria-describedby="f-email-error"/);
    expect(body).toContain('<p class="error" id="f-email-error">Enter a valid e-mail address</p>');
    expect(body).toMatch(/id="f-consent"[^>]*aria-describedby="f-consent-error"/);
    expect(body).toContain('<div class="summary" role="alert">');
    expect(body).toContain('href="#f-consent"');
    expect(body).toMatch(/<textarea[^>]*>&lt;script&gt;/);
  });

  it('answers the thank-you and rate-limit pages in the same style', () => {
    const thanks = renderThankYouPage({ title: HOSTILE });
    expectPageHeaders(thanks);
    expectSafe(String(thanks.body));
    const limited = renderTooManyRequestsPage(1800);
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('1800');
    expectPageHeaders(limited);
  });

  it('serves the .vcf as the encoder payload', () => {
    const c = code('vcard', { vcard: { your_name: 'Ada Lovelace', company_name: 'Analytical, Engines', position: null, email: 'ada@example.com', phone_mobile: '+441234567890', phone_work: null, website: null, address: null, note: 'Line 1\nLine 2' } });
    const r = renderHostedPage(c, { ...req, suffix: '.vcf' })!;
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/vcard; charset=utf-8');
    expect(r.headers['content-disposition']).toBe(`attachment; filename="Ada-Lovelace.vcf"; filename*=UTF-8''Ada%20Lovelace.vcf`);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['content-security-policy']).toContain("default-src 'none'");
    expect(r.body).toBe(`${vcardPayload({ your_name: 'Ada Lovelace', company_name: 'Analytical, Engines', email: 'ada@example.com', phone_mobile: '+441234567890', note: 'Line 1\nLine 2' })}\r\n`);
    // The page offers the download and the contact actions.
    const body = html(renderHostedPage(c, req));
    expect(body).toContain('href="/AbC1234.vcf" download>Add to contacts</a>');
    expect(body).toContain('href="tel:+441234567890"');
    expect(body).toContain('href="mailto:ada@example.com"');
  });

  it('serves the .ics as the encoder VEVENT inside a VCALENDAR', () => {
    const target = { title: 'Launch; party', location: 'Berlin', start: '2026-05-01T18:00:00.000Z', end: '2026-05-01T20:00:00.000Z', description: null };
    const r = renderHostedPage(code('event', target), { ...req, suffix: '.ics' })!;
    expect(r.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(r.headers['content-disposition']).toMatch(/^attachment; filename="Launch-party\.ics"/);
    const vevent = veventPayload({ title: 'Launch; party', location: 'Berlin', start: target.start, end: target.end });
    const body = String(r.body);
    const withoutStamp = body.replace(/\r\nUID:qr_0123456789abcdefghij@scanlink\r\nDTSTAMP:\d{8}T\d{6}Z/, '');
    expect(withoutStamp).toBe(`BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Scanlink//Hosted pages//EN\r\nCALSCALE:GREGORIAN\r\n${vevent}\r\nEND:VCALENDAR\r\n`);
    const page = html(renderHostedPage(code('event', target), req));
    expect(page).toContain('<time datetime="2026-05-01T18:00:00.000Z">Friday, 1 May 2026, 18:00</time> – <time datetime="2026-05-01T20:00:00.000Z">20:00</time> (UTC)');
    expect(page).toContain('href="/AbC1234.ics" download>Add to calendar</a>');
  });

  it('links email and sms pages with mailto: and sms: URIs', () => {
    const email = html(renderHostedPage(code('email', { email: 'a@example.com', subject: 'Hi there', message: 'Line\nTwo', cc: ['b@example.com'], bcc: [] }), req));
    expect(email).toContain('href="mailto:a@example.com?subject=Hi%20there&amp;body=Line%0D%0ATwo&amp;cc=b@example.com"');
    const sms = html(renderHostedPage(code('sms', { phone: '+15551234567', message: 'Hi & bye' }), req));
    expect(sms).toContain('href="sms:+15551234567?body=Hi%20%26%20bye"');
  });

  it('returns null for types without a page and suffixes that do not apply', () => {
    expect(renderHostedPage(code('url', { destination: 'https://example.com' }), req)).toBeNull();
    expect(renderHostedPage(code('location', { lat: 1, lng: 2 }), req)).toBeNull();
    expect(renderHostedPage(HOSTILE_CODES.text, { ...req, suffix: '.vcf' })).toBeNull();
    expect(renderHostedPage(HOSTILE_CODES.event, { ...req, suffix: '.vcf' })).toBeNull();
    expect(renderHostedPage(HOSTILE_CODES.vcard, { ...req, suffix: '.ics' })).toBeNull();
    expect(renderHostedPage(HOSTILE_CODES.form, { ...req, suffix: '.ics' })).toBeNull();
  });
});
