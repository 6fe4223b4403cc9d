import { countryOf } from './geoip';

describe('countryOf', () => {
  it('answers the country of a public address, null for private, loopback and missing ones', () => {
    expect(countryOf('81.2.69.160')).toBe('GB');
    expect(countryOf('::ffff:81.2.69.160')).toBe('GB');
    expect(countryOf('127.0.0.1')).toBeNull();
    expect(countryOf('10.1.2.3')).toBeNull();
    expect(countryOf('::1')).toBeNull();
    expect(countryOf(undefined)).toBeNull();
    expect(countryOf('not an address')).toBeNull();
  });
});
