import type { IncomingMessage } from 'node:http';
import { clientIp, parseTrustProxy } from '../../common/http/client-address';
import { pooledId } from './pooled-ids';
import { answerScan, type ScanAnswerRequest, type ScanEntry } from './scan-answer';
import type { CachedCode } from './scan-contract';
import { userAgentLocation, fixedLocation } from './scan-destination';
import { SCAN_PATH } from './scan-hot-path';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const DESKTOP = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const code = (type: string, target: Record<string, unknown>, state: Partial<CachedCode> = {}): CachedCode => ({
  id: 'qr_0123456789abcdefghij',
  organizationId: 'org_0123456789abcdefghij',
  shortCode: 'AbC1234',
  name: 'A code',
  type,
  target,
  status: 'live',
  isActive: true,
  ...state,
});
const entry = (c: CachedCode | null): ScanEntry => ({ code: c, location: c ? fixedLocation(c) : null });
const req = (over: Partial<ScanAnswerRequest> = {}): ScanAnswerRequest => ({ suffix: '', userAgent: DESKTOP, scanBaseUrl: 'https://scan.example.com', ...over });

describe('fixedLocation', () => {
  it('merges UTM parameters into the destination, keeping its query', () => {
    const c = code('url', { destination: 'https://example.com/a?x=1&utm_medium=old', utm: { medium: 'qr', campaign: 'spring' } });
    expect(fixedLocation(c)).toBe('https://example.com/a?x=1&utm_medium=qr&utm_campaign=spring');
  });

  it('makes a destination safe for a Location header (percent-encoding, punycode)', () => {
    expect(fixedLocation(code('url', { destination: 'https://bücher.example/é?q=ü', utm: null }))).toBe('https://xn--bcher-kva.example/%C3%A9?q=%C3%BC');
  });

  it('builds map links per map_app', () => {
    expect(fixedLocation(code('location', { lat: 1.5, lng: -2, label: null, map_app: 'google' }))).toBe('https://www.google.com/maps/search/?api=1&query=1.5,-2');
    expect(fixedLocation(code('location', { lat: 1.5, lng: -2, label: 'Café & co', map_app: 'apple' }))).toBe('https://maps.apple.com/?ll=1.5,-2&q=Caf%C3%A9%20%26%20co');
    expect(fixedLocation(code('location', { lat: 1.5, lng: -2, label: null, map_app: 'waze' }))).toBe('https://waze.com/ul?ll=1.5,-2&navigate=yes');
  });

  it('has no fixed location for page types, appstores or an unusable destination', () => {
    expect(fixedLocation(code('text', { text: 'hi' }))).toBeNull();
    expect(fixedLocation(code('appstores', { ios_url: 'https://apps.apple.com/x' }))).toBeNull();
    expect(fixedLocation(code('url', { destination: 'javascript:alert(1)' }))).toBeNull();
    expect(fixedLocation(code('location', { map_app: 'google' }))).toBeNull();
  });
});

describe('userAgentLocation', () => {
  const stores = code('appstores', { ios_url: 'https://apps.apple.com/app/id1', android_url: 'https://play.google.com/store/apps/details?id=x' });
  it('picks the store by user agent', () => {
    expect(userAgentLocation(stores, IPHONE)).toBe('https://apps.apple.com/app/id1');
    expect(userAgentLocation(stores, ANDROID)).toBe('https://play.google.com/store/apps/details?id=x');
    expect(userAgentLocation(stores, DESKTOP)).toBeNull();
    expect(userAgentLocation(stores, undefined)).toBeNull();
    expect(userAgentLocation(code('appstores', { ios_url: 'https://apps.apple.com/app/id1', android_url: null }), ANDROID)).toBeNull();
  });
});

describe('answerScan', () => {
  it('redirects a live active link code and marks it countable', () => {
    expect(answerScan(entry(code('url', { destination: 'https://example.com/' })), req())).toEqual({ location: 'https://example.com/', countable: true });
  });

  it('answers 404 for unknown and trashed codes, 410 for inactive and paused ones, never countable', () => {
    const url = { destination: 'https://example.com/' };
    const cases: Array<[ScanEntry, number]> = [
      [entry(null), 404],
      [entry(code('url', url, { status: 'trashed', isActive: false })), 404],
      [entry(code('url', url, { isActive: false })), 410],
      [entry(code('url', url, { status: 'paused' })), 410],
    ];
    for (const [e, status] of cases) {
      const a = answerScan(e, req());
      expect(a.page?.status).toBe(status);
      expect(a.countable).toBe(false);
    }
  });

  it('serves downloads uncounted and 404s a suffix that does not apply', () => {
    const card = answerScan(entry(code('vcard', { vcard: { your_name: 'Ada' } })), req({ suffix: '.vcf' }));
    expect(card.page?.status).toBe(200);
    expect(card.countable).toBe(false);
    expect(answerScan(entry(code('url', { destination: 'https://example.com/' })), req({ suffix: '.ics' })).page?.status).toBe(404);
  });

  it('counts a hosted page, and gives appstores a page on desktop', () => {
    expect(answerScan(entry(code('text', { text: 'hi' })), req())).toMatchObject({ page: { status: 200 }, countable: true });
    const stores = entry(code('appstores', { ios_url: 'https://apps.apple.com/app/id1', android_url: null, fallback_url: null }));
    expect(answerScan(stores, req({ userAgent: IPHONE }))).toEqual({ location: 'https://apps.apple.com/app/id1', countable: true });
    expect(answerScan(stores, req())).toMatchObject({ page: { status: 200 }, countable: true });
  });

  it('answers 404 for a type without a page', () => {
    expect(answerScan(entry(code('gs1-unknown', {})), req())).toMatchObject({ page: { status: 404 }, countable: false });
  });
});

describe('SCAN_PATH', () => {
  it('matches short codes with an optional download suffix and any query string', () => {
    expect(SCAN_PATH.exec('/AbC1234')?.slice(1)).toEqual(['AbC1234', undefined]);
    expect(SCAN_PATH.exec('/AbC1234.vcf?x=1')?.slice(1)).toEqual(['AbC1234', '.vcf']);
    expect(SCAN_PATH.exec('/AbC1234?utm=1')?.[1]).toBe('AbC1234');
    expect(SCAN_PATH.exec('/AbC1234/')?.[1]).toBe('AbC1234');
    for (const path of ['/health', '/AbC12345', '/AbC123', '/AbC1234//', '/AbC1234/x', '/AbC1234.png', '/images/AbC1234', '/AbC-234', '//AbC1234', '/metrics', '/metrics/', '/metrics?x=1']) {
      expect(SCAN_PATH.test(path)).toBe(false);
    }
    expect(SCAN_PATH.exec('/metricz')?.[1]).toBe('metricz');
  });
});

describe('clientIp', () => {
  const request = (remoteAddress: string, forwardedFor?: string) =>
    ({ socket: { remoteAddress }, connection: { remoteAddress }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }) as unknown as IncomingMessage;
  const trust = parseTrustProxy('loopback,linklocal,uniquelocal');

  it('believes X-Forwarded-For only from a trusted peer', () => {
    expect(clientIp(request('127.0.0.1', '81.2.69.142'), trust)).toBe('81.2.69.142');
    expect(clientIp(request('203.0.113.9', '81.2.69.142'), trust)).toBe('203.0.113.9');
    expect(clientIp(request('10.0.0.2', '81.2.69.142, 10.0.0.7'), trust)).toBe('81.2.69.142');
    expect(clientIp(request('127.0.0.1'), trust)).toBe('127.0.0.1');
  });

  it('reads true and false', () => {
    expect(clientIp(request('203.0.113.9', '81.2.69.142'), parseTrustProxy('true'))).toBe('81.2.69.142');
    expect(clientIp(request('127.0.0.1', '81.2.69.142'), parseTrustProxy('false'))).toBe('127.0.0.1');
    expect(() => parseTrustProxy('not-an-address')).toThrow();
  });
});

describe('pooledId', () => {
  it('makes prefixed 20-character base62 ids', () => {
    const ids = new Set(Array.from({ length: 5000 }, () => pooledId('scan')));
    expect(ids.size).toBe(5000);
    for (const id of ids) expect(id).toMatch(/^scan_[0-9A-Za-z]{20}$/);
  });
});
