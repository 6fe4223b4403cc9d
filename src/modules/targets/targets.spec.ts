import { ApiException } from '../../common/errors/api.exception';
import { FieldReader } from './fields';
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
  });

  it('builds wa.me links', () => {
    expect(whatsappUrl(parse({ type: 'whatsapp', phone: '+1 555 123 4567', message: 'Hi there' }))).toBe('https://wa.me/15551234567?text=Hi%20there');
    expect(parse({ type: 'whatsapp', destination: 'https://wa.me/15551234567' })).toEqual({ destination: 'https://wa.me/15551234567' });
    expect(fieldOf(() => parse({ type: 'whatsapp', destination: 'https://example.com' }))).toBe('target.destination');
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
    expect(parse({ type: 'text', destination: 'hello' })).toEqual({ text: 'hello' });
    expect(fieldOf(() => parse({ type: 'email', destination: 'https://x.com' }))).toBe('target.destination');
    expect(fieldOf(() => parse({ type: 'vcard', destination: 'BEGIN:VCARD\r\nEND:VCARD' }, 'dynamic'))).toBe('target.destination');
    expect(parse({ type: 'vcard', destination: 'BEGIN:VCARD\r\nFN:A\r\nEND:VCARD' }, 'static')).toEqual({ raw: 'BEGIN:VCARD\r\nFN:A\r\nEND:VCARD' });
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
