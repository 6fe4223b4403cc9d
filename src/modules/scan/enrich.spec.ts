import { enrich, isBot, primaryLanguage, referrerHost } from './enrich';

const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const WINDOWS_CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

describe('scan enrichment', () => {
  it('derives device, OS, browser, country, city, referrer host and language, and nothing else', () => {
    const ctx = enrich({ userAgent: IPHONE, ip: '81.2.69.142', referer: 'https://News.Example.com/a?b=c', acceptLanguage: 'en-GB,en;q=0.8' });
    expect(ctx).toEqual({
      country: 'GB',
      city: expect.any(String),
      device: 'Mobile',
      os: 'iOS',
      browser: 'Mobile Safari',
      referrer: 'news.example.com',
      language: 'en',
    });
    expect(JSON.stringify(ctx)).not.toContain('81.2.69.142');
    expect(JSON.stringify(ctx)).not.toContain('Mozilla');
  });

  it('calls an untyped desktop user agent a Desktop', () => {
    expect(enrich({ userAgent: WINDOWS_CHROME })).toMatchObject({ device: 'Desktop', os: 'Windows', browser: 'Chrome' });
  });

  it('calls a bare mobile-OS user agent (no device type) a Mobile, not a Desktop', () => {
    expect(enrich({ userAgent: 'Android 14' })).toMatchObject({ device: 'Mobile', os: 'Android' });
    expect(enrich({ userAgent: 'Dalvik/2.1.0 (Linux; U; Android 14; Build/UP1A)' })).toMatchObject({ device: 'Mobile', os: 'Android' });
  });

  it('leaves unknown values null (loopback, private addresses, no headers)', () => {
    expect(enrich({ ip: '127.0.0.1' })).toEqual({ country: null, city: null, device: null, os: null, browser: null, referrer: null, language: null });
    expect(enrich({ ip: '10.1.2.3' }).country).toBeNull();
    expect(enrich({ ip: '::ffff:8.8.8.8' }).country).toBe('US');
  });

  it('parses Referer and Accept-Language defensively', () => {
    expect(referrerHost('not a url')).toBeNull();
    expect(referrerHost('android-app://com.google.android.gm/')).toBe('com.google.android.gm');
    expect(primaryLanguage('*')).toBeNull();
    expect(primaryLanguage('de-DE;q=0.9')).toBe('de');
    expect(primaryLanguage('ZH-Hant-TW')).toBe('zh');
  });

  it('recognizes link-preview bots and crawlers, and treats a missing user agent as a bot', () => {
    expect(isBot('Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)')).toBe(true);
    expect(isBot('facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)')).toBe(true);
    expect(isBot('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)')).toBe(true);
    expect(isBot('curl/8.5.0')).toBe(true);
    expect(isBot(undefined)).toBe(true);
    expect(isBot(IPHONE)).toBe(false);
    expect(isBot(WINDOWS_CHROME)).toBe(false);
  });
});
