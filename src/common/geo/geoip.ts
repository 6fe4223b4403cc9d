type GeoIp = typeof import('geoip-lite');
let geoIp: GeoIp | undefined;

/**
 * geoip-lite, loaded on first use: requiring it reads its whole database into memory (about 150 MB and 300 ms), which
 * only the processes that geolocate should pay: the scan host (at start), and the api when it first records an audit
 * entry (its `ip_country`).
 */
export function loadGeoIp(): GeoIp {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (geoIp ??= require('geoip-lite') as GeoIp);
}

/** The ISO 3166-1 alpha-2 country of a client address, from the offline GeoLite2 data geoip-lite ships (no network);
 * null for a private or unknown address. The address is only used here, in memory. */
export function countryOf(ip: string | undefined): string | null {
  if (!ip) return null;
  const country = loadGeoIp().lookup(ip.startsWith('::ffff:') ? ip.slice(7) : ip)?.country;
  return country && /^[A-Z]{2}$/.test(country) ? country : null;
}
