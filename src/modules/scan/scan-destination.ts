import { mapUrl } from '../qr-codes/targets/content.targets';
import { LINK_TYPES, mergeUtm, type Utm, whatsappUrl } from '../qr-codes/targets/link.targets';
import type { CachedCode } from './scan-contract';

/** Types whose scan is a 302 that does not depend on the visitor: url, the link types, location, whatsapp, telegram. */
const FIXED_REDIRECT_TYPES: ReadonlySet<string> = new Set(['url', ...LINK_TYPES, 'location', 'whatsapp', 'telegram']);

/** A URL as it can go in a Location header (percent-encoded, punycode host), or null when it is not an http(s) URL. */
function headerSafeUrl(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The redirect of a code whose destination is the same for every visitor, computed once when the code enters the
 * cache (so a scan does no URL work). Null for page-served types, appstores, or a target without a usable URL.
 */
export function fixedLocation(code: CachedCode): string | null {
  if (!FIXED_REDIRECT_TYPES.has(code.type)) return null;
  const t = code.target;
  switch (code.type) {
    case 'location':
      return typeof t.lat === 'number' && typeof t.lng === 'number' ? headerSafeUrl(mapUrl(t)) : null;
    case 'whatsapp':
      return headerSafeUrl(whatsappUrl(t));
    case 'telegram':
      return typeof t.destination === 'string' ? headerSafeUrl(t.destination) : null;
    default: {
      if (typeof t.destination !== 'string') return null;
      const base = headerSafeUrl(t.destination);
      return base && headerSafeUrl(mergeUtm(base, t.utm as Utm | null | undefined));
    }
  }
}

const IOS = /iPhone|iPad|iPod/;
const ANDROID = /Android/;

/** The store link of an appstores code for this user agent (iOS → ios_url, Android → android_url), else null. */
export function appStoreLocation(code: CachedCode, userAgent: string | undefined): string | null {
  if (!userAgent) return null;
  const field = IOS.test(userAgent) ? 'ios_url' : ANDROID.test(userAgent) ? 'android_url' : null;
  const url = field ? code.target[field] : null;
  return typeof url === 'string' && url ? headerSafeUrl(url) : null;
}
