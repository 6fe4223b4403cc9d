import { createCode, createOrg, http, startApi, startScan, TestApp, TestOrg } from '../setup/app';

const CARD = ['BEGIN:VCARD', 'VERSION:3.0', 'N:Lovelace;Ada;;;', 'FN:Ada Lovelace', 'ORG:Analytical Engines', 'TITLE:CTO', 'EMAIL:ada@example.com', 'TEL;TYPE=CELL:+441234567890', 'END:VCARD'].join('\r\n');
const EVENT = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Example//EN', 'BEGIN:VEVENT', 'UID:launch@example.com', 'DTSTAMP:20260101T000000Z', 'SUMMARY:Launch party', 'DTSTART:20260501T180000Z', 'DTEND:20260501T210000Z', 'LOCATION:Hall 1', 'END:VEVENT', 'END:VCALENDAR'].join('\r\n');

/** The spec's Target: every type takes structured fields or a pre-encoded `destination`; vCard and iCalendar texts
 * included, for dynamic codes too (parsed into fields, which their hosted page and download serve). */
describe('POST /v1/qr-codes with a pre-encoded vCard or iCalendar destination', () => {
  let api: TestApp;
  let scan: TestApp;
  let org: TestOrg;
  beforeAll(async () => {
    api = await startApi();
    scan = await startScan();
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await scan?.close();
    await api?.close();
  });

  it('accepts a raw BEGIN:VCARD for a dynamic vcard code and serves it (hosted page and .vcf)', async () => {
    const code = await createCode(api, org, { target: { type: 'vcard', destination: CARD } });
    expect(code.target).toMatchObject({ type: 'vcard', vcard: { your_name: 'Ada Lovelace', company_name: 'Analytical Engines', position: 'CTO', email: 'ada@example.com' } });
    const page = await fetch(`${scan.origin}/${code.short_code}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Ada Lovelace');
    const vcf = await fetch(`${scan.origin}/${code.short_code}.vcf`);
    expect(vcf.headers.get('content-type')).toBe('text/vcard; charset=utf-8');
    const text = await vcf.text();
    expect(text).toMatch(/^BEGIN:VCARD\r\nVERSION:3\.0\r\n/);
    expect(text).toContain('FN:Ada Lovelace');
    expect(text).toContain('EMAIL');
  });

  it('accepts a raw BEGIN:VCALENDAR/BEGIN:VEVENT for a dynamic event code and serves it (hosted page and .ics)', async () => {
    const code = await createCode(api, org, { target: { type: 'event', destination: EVENT } });
    expect(code.target).toMatchObject({ type: 'event', title: 'Launch party', location: 'Hall 1', start: '2026-05-01T18:00:00.000Z', end: '2026-05-01T21:00:00.000Z' });
    expect(await (await fetch(`${scan.origin}/${code.short_code}`)).text()).toContain('Launch party');
    const ics = await fetch(`${scan.origin}/${code.short_code}.ics`);
    expect(ics.headers.get('content-type')).toMatch(/^text\/calendar/);
    expect(await ics.text()).toContain('SUMMARY:Launch party');
    const bare = await createCode(api, org, { target: { type: 'event', destination: ['BEGIN:VEVENT', 'SUMMARY:Bare', 'DTSTART:20260601T090000Z', 'DURATION:PT1H', 'END:VEVENT'].join('\r\n') } });
    expect(bare.target).toMatchObject({ title: 'Bare', end: '2026-06-01T10:00:00.000Z' });
  });

  it('keeps the text as sent in a static code', async () => {
    const code = await createCode(api, org, { type: 'static', target: { type: 'vcard', destination: CARD } });
    expect(code.kind).toBe('static');
    expect((await http(api.origin, 'GET', `/v1/qr-codes/${code.id}/download`, { key: org.apiKey })).status).toBe(200);
  });

  it.each([
    ['vcard', 'BEGIN:VCARD\r\nFN:No version\r\nEND:VCARD', /VERSION/],
    ['vcard', 'BEGIN:VCARD\r\nVERSION:2.1\r\nFN:Old\r\nEND:VCARD', /3\.0 or 4\.0/],
    ['vcard', 'BEGIN:VCARD\r\nVERSION:4.0\r\nN:Lovelace;Ada\r\nEND:VCARD', /FN/],
    ['vcard', 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN Ada\r\nEND:VCARD', /valid vCard/],
    ['event', 'BEGIN:VEVENT\r\nSUMMARY:No start\r\nEND:VEVENT', /DTSTART/],
    ['event', 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR', /VEVENT/],
  ])('refuses an invalid %s text with 400 naming target.destination (%#)', async (type, destination, message) => {
    for (const kind of ['dynamic', 'static']) {
      const res = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type: kind, target: { type, destination } } });
      expect([kind, res.status, res.body.error.field]).toEqual([kind, 400, 'target.destination']);
      expect(res.body.error.message).toMatch(message);
    }
  });
});
