import { randomBytes } from 'node:crypto';
import { VisitorHasher, visitorHash } from './visitor-salt';

describe('VisitorHasher', () => {
  it('gives exactly the HMAC of visitorHash (createHmac) for every kind of input', () => {
    const salt = randomBytes(32);
    const hasher = new VisitorHasher(salt);
    const agents = [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
      '',
      'Ünïcödé 浏览器 🚀',
      'x'.repeat(330), // close to the buffer's bound (× 3 > 1,024 with the rest: createHmac)
      'y'.repeat(5_000),
      'é'.repeat(300),
    ];
    for (const ua of agents) {
      for (const ip of ['203.0.113.9', '2001:db8::1', '']) {
        expect(hasher.hash('qr_0123456789abcdefghij', ip, ua)).toBe(visitorHash(salt, 'qr_0123456789abcdefghij', ip, ua));
      }
    }
    // The scratch buffer keeps no trace of a longer message: a short one after it still matches.
    expect(hasher.hash('qr_1', '198.51.100.1', 'a')).toBe(visitorHash(salt, 'qr_1', '198.51.100.1', 'a'));
  });

  it('depends on the salt, the code, the address and the user agent', () => {
    const a = new VisitorHasher(randomBytes(32));
    const b = new VisitorHasher(randomBytes(32));
    const base = a.hash('qr_1', '203.0.113.9', 'UA');
    expect(base).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set([base, b.hash('qr_1', '203.0.113.9', 'UA'), a.hash('qr_2', '203.0.113.9', 'UA'), a.hash('qr_1', '203.0.113.8', 'UA'), a.hash('qr_1', '203.0.113.9', 'UB')]).size).toBe(5);
    // The separator keeps the fields apart.
    expect(a.hash('qr_1', '1', '23')).not.toBe(a.hash('qr_1', '12', '3'));
  });

  it('refuses a salt longer than a SHA-256 block', () => {
    expect(() => new VisitorHasher(randomBytes(65))).toThrow();
  });
});
