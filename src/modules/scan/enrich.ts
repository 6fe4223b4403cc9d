import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';
import type { ScanContext } from './scan-contract';
import { loadGeoIp } from '../../common/geo/geoip';
import { preferredLanguage } from '../../common/http/accept-language';

export interface ScanRequestFacts {
  userAgent?: string;
  /** The client IP: used here, in memory, for the geo lookup only. Never returned, stored, queued or logged. */
  ip?: string;
  referer?: string;
  acceptLanguage?: string;
}

const DEVICE_NAMES: Record<string, string> = {
  mobile: 'Mobile',
  tablet: 'Tablet',
  console: 'Console',
  smarttv: 'Smart TV',
  wearable: 'Wearable',
  embedded: 'Embedded',
  xr: 'XR',
};

const cut = (s: string | undefined, max = 100): string | null => {
  const v = s?.trim();
  return v ? v.slice(0, max) : null;
};

/** Link-preview bots and crawlers (isbot's maintained pattern list): answered, never counted. */
export function isBot(userAgent: string | undefined): boolean {
  return !userAgent || isbot(userAgent);
}

/** The referring page's host (lower case) or null for a missing or unparsable Referer. */
export function referrerHost(referer: string | undefined): string | null {
  if (!referer) return null;
  try {
    const host = new URL(referer).hostname.toLowerCase();
    return host ? host.slice(0, 255) : null;
  } catch {
    return null;
  }
}

/** Primary language subtag of the preferred Accept-Language range ("en-GB,en;q=0.8" → "en"; "en;q=0.1, fr;q=0.9" →
 * "fr"); null for "*" or nothing (accept-language.ts). */
export function primaryLanguage(acceptLanguage: string | undefined): string | null {
  const preferred = preferredLanguage(acceptLanguage);
  return preferred === null ? null : preferred.split('-')[0];
}

// geoip-lite is loaded once per process, on first use (common/geo: the api's audit log uses it too).
export { loadGeoIp };

/** Where a scan came from, as far as the address tells. */
export interface Place {
  country: string | null;
  city: string | null;
  /** ISO 3166-2 (`US-CA`), for smart-URL rules only (never stored) */
  region: string | null;
}

/** The country, region and city of a geoip-lite answer (null: no location). */
export function placeOf(hit: { country: string; city: string; region?: string } | null): Place {
  const country = cut(hit?.country, 2);
  return { country, city: cut(hit?.city), region: country && hit?.region ? `${country}-${hit.region}`.slice(0, 10) : null };
}

/** Country and city from the offline GeoLite2 data geoip-lite ships (no network, no API key). */
export function geolocate(ip: string | undefined): Place {
  if (!ip) return { country: null, city: null, region: null };
  return placeOf(loadGeoIp().lookup(ip.startsWith('::ffff:') ? ip.slice(7) : ip));
}

const MOBILE_OSES = new Set(['Android', 'iOS', 'HarmonyOS', 'KaiOS', 'Windows Phone', 'BlackBerry', 'Sailfish']);

/** Device, OS and browser (ua-parser-js 1.x: MIT, maintained, the de-facto parser). */
export function parseUserAgent(userAgent: string | undefined): Pick<ScanContext, 'device' | 'os' | 'browser'> {
  if (!userAgent) return { device: null, os: null, browser: null };
  const r = new UAParser(userAgent).getResult();
  const os = cut(r.os.name);
  const type = r.device.type;
  // ua-parser leaves desktops untyped: a recognized OS or browser without a device type is a desktop, unless the OS
  // only runs on phones and tablets (a bare `Android 14` or an app's `Dalvik/…` agent): then it is a Mobile.
  const device = type ? (DEVICE_NAMES[type] ?? cut(type)) : os && MOBILE_OSES.has(os) ? 'Mobile' : os || r.browser.name ? 'Desktop' : null;
  return { device, os, browser: cut(r.browser.name) };
}

/** Assembles a ScanContext. Spelled out rather than spread: object spread costs about 5 µs per call here, a tenth of
 * a redirect's budget on the scan host. */
export function scanContext(
  place: Place,
  ua: Pick<ScanContext, 'device' | 'os' | 'browser'>,
  referrer: string | null,
  language: string | null,
): ScanContext {
  return { country: place.country, city: place.city, device: ua.device, os: ua.os, browser: ua.browser, referrer, language };
}

/** Everything the analytics keep about a request: derived values only, the IP and raw user agent are dropped. */
export function enrich(facts: ScanRequestFacts): ScanContext {
  return scanContext(geolocate(facts.ip), parseUserAgent(facts.userAgent), referrerHost(facts.referer), primaryLanguage(facts.acceptLanguage));
}
