import { ApiException } from '../../common/errors/api.exception';
import { characters, FieldReader } from './fields';
import { mergeUtm, whatsappUrl } from './link.targets';
import { mapUrl } from './location.target';
import { handlerFor, inferTargetType, STATIC_CAPABLE_TYPES, TARGET_TYPES } from './registry';

const parse = (target: Record<string, unknown>, kind: 'dynamic' | 'static' = 'dynamic') =>
  handlerFor(target.type).parse(new FieldReader(target), kind);

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiException) return err.extras.field;
    throw err;
  }
  return undefined;
}

describe('target handlers', () => {
  it('knows every type of docs/targets.md, static only where docs/targets.md allows it', () => {
    expect(TARGET_TYPES).toEqual(expect.arrayContaining(['url', 'youtube', 'googleform', 'text', 'email', 'sms', 'wifi', 'event', 'vcard', 'whatsapp', 'telegram', 'location', 'appstores', 'review', 'linkpage', 'form', 'menupage']));
    expect(STATIC_CAPABLE_TYPES.sort()).toEqual(['email', 'event', 'location', 'sms', 'text', 'url', 'vcard', 'wifi']);
  });

  it('counts text limits in characters, an emoji being one (as the error message and PostgreSQL say)', () => {
    expect([characters(''), characters('abc'), characters('🍣🍣'), characters('é'), characters('\ud83c')]).toEqual([0, 3, 2, 1, 1]);
    const links = [{ title: 'a', url: 'https://a.example' }];
    expect(parse({ type: 'linkpage', title: '🍣'.repeat(255), links }).title).toBe('🍣'.repeat(255));
    expect(fieldOf(() => parse({ type: 'linkpage', title: '🍣'.repeat(256), links }))).toBe('target.title');
    const menu = (price: unknown) => ({ type: 'menupage', title: 'M', sections: [{ name: 'S', items: [{ name: 'Tea', price }] }] });
    expect(fieldOf(() => parse(menu('€'.repeat(50))))).toBeUndefined();
    expect(fieldOf(() => parse(menu('🍣'.repeat(50))))).toBeUndefined();
    expect(fieldOf(() => parse(menu('🍣'.repeat(51))))).toBe('target.sections[0].items[0].price');
  });

  it('refuses a menu price that JSON turned into Infinity or that would print in exponent form', () => {
    const menu = (price: unknown) => ({ type: 'menupage', title: 'M', sections: [{ name: 'S', items: [{ name: 'Tea', price }] }] });
    expect(parse(menu(2.5)).sections).toEqual([{ name: 'S', items: [{ name: 'Tea', price: 2.5, description: null }] }]);
    expect(fieldOf(() => parse(menu(999_999_999_999_999)))).toBeUndefined();
    for (const price of [JSON.parse('1e999'), -Infinity, 1e15, 1e308, NaN]) {
      expect(fieldOf(() => parse(menu(price)))).toBe('target.sections[0].items[0].price');
    }
  });

  it('merges UTM parameters keeping the existing query', () => {
    expect(mergeUtm('https://example.com/p?a=1#top', { source: 'qr', campaign: 'spring sale' })).toBe(
      'https://example.com/p?a=1&utm_source=qr&utm_campaign=spring+sale#top',
    );
    expect(mergeUtm('https://example.com/?utm_source=old', { source: 'new' })).toBe('https://example.com/?utm_source=new');
    expect(mergeUtm('https://example.com/', null)).toBe('https://example.com/');
    // The rest of the query is kept as written: encoding, order, bare parameters, repeats of other names.
    expect(mergeUtm('https://example.com/r?ids=1,2&next=/a/b:c&t=~x&q=a%20b&flag&x=1&x=2', { campaign: 'c' })).toBe(
      'https://example.com/r?ids=1,2&next=/a/b:c&t=~x&q=a%20b&flag&x=1&x=2&utm_campaign=c',
    );
    // A utm_* the code sets replaces the first of that name in place and drops its repeats (encoded names too).
    expect(mergeUtm('https://example.com/?utm_source=a&k=v&utm%5Fsource=b#/spa?x', { source: 'qr', medium: 'print' })).toBe(
      'https://example.com/?utm_source=qr&k=v&utm_medium=print#/spa?x',
    );
    expect(mergeUtm('https://example.com', { source: 'qr' })).toBe('https://example.com/?utm_source=qr');
    expect(mergeUtm('https://example.com/p?', { source: 'qr' })).toBe('https://example.com/p?utm_source=qr');
  });

  it('normalizes telegram destinations', () => {
    expect(parse({ type: 'telegram', destination: '@scanlink_bot' })).toEqual({ destination: 'https://t.me/scanlink_bot' });
    expect(parse({ type: 'telegram', destination: 'scanlink_bot' })).toEqual({ destination: 'https://t.me/scanlink_bot' });
    expect(parse({ type: 'telegram', destination: '+1 555 123 4567' })).toEqual({ destination: 'https://t.me/+15551234567' });
    expect(parse({ type: 'telegram', destination: 't.me/joinchat/abc' })).toEqual({ destination: 'https://t.me/joinchat/abc' });
    expect(fieldOf(() => parse({ type: 'telegram', destination: 'https://evil.example.com' }))).toBe('target.destination');
    for (const empty of ['https://t.me/', 't.me/', 'https://t.me/?start=x']) expect([empty, fieldOf(() => parse({ type: 'telegram', destination: empty }))]).toEqual([empty, 'target.destination']);
  });

  it('builds wa.me links', () => {
    expect(whatsappUrl(parse({ type: 'whatsapp', phone: '+1 555 123 4567', message: 'Hi there' }))).toBe('https://wa.me/15551234567?text=Hi%20there');
    expect(parse({ type: 'whatsapp', destination: 'https://wa.me/15551234567' })).toEqual({ destination: 'https://wa.me/15551234567' });
    expect(fieldOf(() => parse({ type: 'whatsapp', destination: 'https://example.com' }))).toBe('target.destination');
    for (const empty of ['https://wa.me/', 'https://wa.me/?text=hi']) expect([empty, fieldOf(() => parse({ type: 'whatsapp', destination: empty }))]).toEqual([empty, 'target.destination']);
    expect(parse({ type: 'whatsapp', destination: 'https://wa.me/message/ABC123' })).toEqual({ destination: 'https://wa.me/message/ABC123' });
  });

  it('parses pre-encoded destinations of structured types', () => {
    expect(parse({ type: 'wifi', destination: 'WIFI:T:WPA;S:My\\;Net;P:pa\\:ss1234;H:true;;' })).toEqual({
      ssid: 'My;Net',
      password: 'pa:ss1234',
      encryption: 'WPA',
      hidden: true,
    });
    expect(parse({ type: 'email', destination: 'mailto:a@example.com?subject=Hi%20there&body=x&cc=b@example.com' })).toMatchObject({
      email: 'a@example.com',
      subject: 'Hi there',
      message: 'x',
      cc: ['b@example.com'],
    });
    expect(parse({ type: 'sms', destination: 'SMSTO:+15551234567:hello' })).toEqual({ phone: '+15551234567', message: 'hello' });
    expect(parse({ type: 'location', destination: 'geo:48.85,2.29' })).toMatchObject({ lat: 48.85, lng: 2.29 });
    // Numbers are JSON numbers, and dates real calendar dates: nothing is coerced or rolled over into a printed code.
    for (const lat of ['12', ' 12 ', '0x10', '']) expect([lat, fieldOf(() => parse({ type: 'location', lat, lng: 2 }, 'static'))]).toEqual([lat, 'target.lat']);
    for (const start of ['2026-02-30T10:00:00Z', '2026-02-31T10:00', '2026-05-01T24:00:00Z']) {
      expect([start, fieldOf(() => parse({ type: 'event', title: 'T', start, end: '2026-06-01T10:00:00Z' }, 'static'))]).toEqual([start, 'target.start']);
    }
    expect(parse({ type: 'event', title: 'T', start: '2026-02-28T10:00', end: '2026-02-28T12:00:00+01:00' }, 'static')).toMatchObject({ start: '2026-02-28T10:00:00.000Z', end: '2026-02-28T11:00:00.000Z' });
    expect(parse({ type: 'text', destination: 'hello' })).toEqual({ text: 'hello' });
    expect(fieldOf(() => parse({ type: 'email', destination: 'https://x.com' }))).toBe('target.destination');
    expect(fieldOf(() => parse({ type: 'vcard', destination: 'BEGIN:VCARD\r\nEND:VCARD' }, 'dynamic'))).toBe('target.destination');
    expect(parse({ type: 'vcard', destination: 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:A\r\nEND:VCARD' }, 'static')).toEqual({ raw: 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:A\r\nEND:VCARD' });
  });

  it('validates a pre-encoded vCard (3.0 or 4.0) or iCalendar event, and parses it into fields for a dynamic code', () => {
    const card = ['BEGIN:VCARD', 'VERSION:4.0', 'FN:Ada Lovelace', 'ORG:Analytical Engines;R&D', 'TITLE:CTO', 'EMAIL:ada@example.com', 'TEL;TYPE=cell:+441234567890', 'END:VCARD'].join('\r\n');
    expect(parse({ type: 'vcard', destination: card }, 'dynamic')).toEqual({
      vcard: { your_name: 'Ada Lovelace', company_name: 'Analytical Engines', position: 'CTO', email: 'ada@example.com', phone_mobile: '+441234567890', phone_work: null, website: null, address: null, note: null },
    });
    expect(parse({ type: 'vcard', destination: card }, 'static')).toEqual({ raw: card });
    for (const bad of ['BEGIN:VCARD\r\nFN:A\r\nEND:VCARD', 'BEGIN:VCARD\r\nVERSION:2.1\r\nFN:A\r\nEND:VCARD', 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN Ada\r\nEND:VCARD', 'BEGIN:VCARD\r\nVERSION:3.0\r\nN:Lovelace;Ada\r\nEND:VCARD']) {
      expect([bad, fieldOf(() => parse({ type: 'vcard', destination: bad }, 'static'))]).toEqual([bad, 'target.destination']);
      expect([bad, fieldOf(() => parse({ type: 'vcard', destination: bad }, 'dynamic'))]).toEqual([bad, 'target.destination']);
    }
    const vevent = ['BEGIN:VEVENT', 'SUMMARY:Launch party', 'DTSTART:20260501T180000Z', 'DURATION:PT2H30M', 'LOCATION:Hall 1', 'END:VEVENT'].join('\r\n');
    expect(parse({ type: 'event', destination: vevent }, 'dynamic')).toEqual({ title: 'Launch party', location: 'Hall 1', start: '2026-05-01T18:00:00.000Z', end: '2026-05-01T20:30:00.000Z', description: null });
    const calendar = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\n${vevent.replace('DURATION:PT2H30M', 'DTEND:20260501T210000Z')}\r\nEND:VCALENDAR`;
    expect(parse({ type: 'event', destination: calendar }, 'dynamic')).toMatchObject({ title: 'Launch party', end: '2026-05-01T21:00:00.000Z' });
    expect(parse({ type: 'event', destination: calendar }, 'static')).toEqual({ raw: calendar });
    for (const bad of ['BEGIN:VEVENT\r\nSUMMARY:x\r\nEND:VEVENT', 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR', 'BEGIN:VEVENT\r\nSUMMARY x\r\nEND:VEVENT']) {
      expect([bad, fieldOf(() => parse({ type: 'event', destination: bad }, 'dynamic'))]).toEqual([bad, 'target.destination']);
    }
  });

  it('produces the static payloads of docs/targets.md', () => {
    const payload = (t: Record<string, unknown>) => handlerFor(t.type).payload(parse(t, 'static'));
    expect(payload({ type: 'url', destination: 'https://example.com/x' })).toBe('https://example.com/x');
    expect(payload({ type: 'text', text: 'Hi' })).toBe('Hi');
    expect(payload({ type: 'email', email: 'a@example.com', subject: 'S' })).toBe('mailto:a@example.com?subject=S');
    expect(payload({ type: 'sms', phone: '+15551234567', message: 'M' })).toBe('SMSTO:+15551234567:M');
    expect(payload({ type: 'wifi', ssid: 'N', password: 'password1', encryption: 'WPA' })).toBe('WIFI:T:WPA;S:N;P:password1;;');
    expect(payload({ type: 'location', lat: 1.5, lng: -2 })).toBe('geo:1.5,-2');
    expect(payload({ type: 'vcard', vcard: { your_name: 'Ada' } })).toMatch(/^BEGIN:VCARD\r\nVERSION:3\.0\r\n/);
    expect(payload({ type: 'event', title: 'T', start: '2026-05-01T18:00:00+02:00', end: '2026-05-01T19:00:00+02:00' })).toContain('DTSTART:20260501T160000Z');
  });

  it('patches a location code into a redirect with a plain destination', () => {
    const h = handlerFor('location');
    const current = parse({ type: 'location', lat: 1, lng: 2 });
    expect(h.patch(current, new FieldReader({ destination: 'https://maps.example.com' }))).toEqual({
      type: 'url',
      target: { destination: 'https://maps.example.com', utm: null },
    });
    expect(h.patch(current, new FieldReader({ label: 'Home' })).target).toMatchObject({ lat: 1, lng: 2, label: 'Home' });
  });

  it("refuses a PATCH that sends a link code's destination as null (null is not omitted)", () => {
    const h = handlerFor('url');
    const current = parse({ type: 'url', destination: 'https://example.com/a' });
    expect(fieldOf(() => h.patch(current, new FieldReader({ destination: null }, 'target')))).toBe('target.destination');
    expect(h.patch(current, new FieldReader({ utm: { source: 'x' } }, 'target')).target).toMatchObject({ destination: 'https://example.com/a' });
  });

  it('builds map links per app', () => {
    expect(mapUrl({ lat: 1, lng: 2, map_app: 'google' })).toBe('https://www.google.com/maps/search/?api=1&query=1,2');
    expect(mapUrl({ lat: 1, lng: 2, map_app: 'apple', label: 'A B' })).toBe('https://maps.apple.com/?ll=1,2&q=A%20B');
    expect(mapUrl({ lat: 1, lng: 2, map_app: 'waze' })).toBe('https://waze.com/ul?ll=1,2&navigate=yes');
  });

  it('refuses duplicate or reserved form field names', () => {
    const f = (fields: unknown[]) => fieldOf(() => parse({ type: 'form', title: 'F', fields }));
    expect(f([{ name: 'email', label: 'E' }, { name: 'email', label: 'E2' }])).toBe('target.fields[1].name');
    expect(f([{ name: 'Bad Name', label: 'x' }])).toBe('target.fields[0].name');
    expect(f([{ name: 'consent', label: 'x' }])).toBe('target.fields[0].name');
  });
});

describe('batch items without target.type', () => {
  it('infers the target type of an item from its fields', () => {
    expect(inferTargetType({ destination: 'https://x.com' })).toBe('url');
    expect(inferTargetType({ text: 'x' })).toBe('text');
    expect(inferTargetType({ ssid: 'x' })).toBe('wifi');
    expect(inferTargetType({ title: 'x', start: 's', end: 'e' })).toBe('event');
    expect(inferTargetType({ email: 'a@b.co' })).toBe('email');
    expect(inferTargetType({ phone: '+1555' })).toBe('sms');
    expect(inferTargetType({ type: 'vcard' })).toBe('vcard');
    expect(inferTargetType({})).toBeUndefined();
  });
});
