import { geolocate } from './enrich';
import { GeoCache, ipv4Number, isLocalIpv4 } from './geo-cache';

describe('GeoCache', () => {
  it('reads dotted quads (also IPv4-mapped) and refuses anything else', () => {
    expect(ipv4Number('0.0.0.0')).toBe(0);
    expect(ipv4Number('81.2.69.142')).toBe(((81 * 256 + 2) * 256 + 69) * 256 + 142);
    expect(ipv4Number('255.255.255.255')).toBe(2 ** 32 - 1);
    expect(ipv4Number('::ffff:8.8.8.8')).toBe(ipv4Number('8.8.8.8'));
    for (const bad of ['', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1..2.3', '1.2.3.', '::1', '2001:db8::1', '1.2.3.4 ', 'a.b.c.d']) {
      expect(ipv4Number(bad)).toBe(-1);
    }
  });

  it('knows the loopback, private and link-local ranges', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.1.1', '0.0.0.0']) {
      expect(isLocalIpv4(ipv4Number(ip))).toBe(true);
    }
    for (const ip of ['172.15.0.1', '172.32.0.1', '8.8.8.8', '81.2.69.142', '11.0.0.1']) expect(isLocalIpv4(ipv4Number(ip))).toBe(false);
  });

  it('answers exactly what geoip-lite answers for each address, from the cache or not', () => {
    const cache = new GeoCache();
    let seed = 42;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const addresses: string[] = ['127.0.0.1', '10.0.0.1', '::1', '::ffff:81.2.69.142', '2a02:c7f:1234::1', '8.8.8.8'];
    for (let i = 0; i < 3_000; i++) {
      const n = random();
      addresses.push([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'));
    }
    // Whole /24s, walked up and down: networks smaller than a /24 share a slot and must still be told apart.
    for (const prefix of ['81.2.69', '8.8.8', '1.1.1', '185.199.108', '203.0.113']) {
      for (let x = 0; x < 256; x++) addresses.push(`${prefix}.${x}`);
      for (let x = 255; x >= 0; x--) addresses.push(`${prefix}.${x}`);
    }
    let located = 0;
    for (const round of [1, 2]) {
      for (const ip of addresses) {
        const expected = geolocate(ip);
        expect({ ip, round, place: cache.locate(ip) }).toEqual({ ip, round, place: expected });
        if (expected.country) located++;
      }
    }
    expect(located).toBeGreaterThan(1_000);
    expect(cache.locate(undefined)).toEqual({ country: null, city: null, region: null });
  });
});
