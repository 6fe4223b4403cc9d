/**
 * Which site a scan request is for, from its `Host` header: the contract between the scan host's routes (short codes,
 * GS1 Digital Link paths, lead posts) and the code caches. Pure; the host map itself is DomainHostCache.
 *
 * A site is `null` for the default scan host (the host of SCAN_BASE_URL) or the id of a verified custom domain; a
 * request for any other host has no site (`undefined`) and gets the 404 page. Cache keys of codes are
 * `<domain id or empty>:<key>` (siteKey), so a code on `go.acme.example` never answers on another host.
 */
export type ScanSite = string | null;

/** Names that reach this machine itself (with every `*.localhost` name, RFC 6761): when SCAN_BASE_URL is one of
 * them, the default site answers on all of them (local runs, tests and the compose file's `scan.localhost` reach the
 * scan host by different local names). */
const LOCAL_NAMES = ['localhost', '127.0.0.1', '[::1]', '0.0.0.0'];
const isLocalName = (name: string): boolean => LOCAL_NAMES.includes(name) || name.endsWith('.localhost');

/** The host name of a `Host` header value: lower case, without port or trailing dot (`[::1]` keeps its brackets,
 * as URL.hostname writes it). */
export function hostnameOf(host: string): string {
  let name: string;
  if (host.charCodeAt(0) === 91 /* [ */) {
    const end = host.indexOf(']');
    name = end < 0 ? host : host.slice(0, end + 1);
  } else {
    const colon = host.indexOf(':');
    name = colon < 0 ? host : host.slice(0, colon);
  }
  name = name.toLowerCase();
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** Whether a host name (hostnameOf) is the default site's: SCAN_BASE_URL's, or any local name when that one is local. */
export function defaultSiteMatcher(scanBaseUrl: string): (name: string) => boolean {
  const own = hostnameOf(new URL(scanBaseUrl).host);
  return isLocalName(own) ? isLocalName : (name) => name === own;
}

/** The cache key of `key` (a short code, a GS1 identifier) on a site: `<domain id or empty>:<key>`. */
export function siteKey(site: ScanSite, key: string): string {
  return site === null ? `:${key}` : `${site}:${key}`;
}

/** Characters of a host name in a `Host` header (ASCII: IDNs arrive as punycode). */
function badNameChar(host: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = host.charCodeAt(i);
    // a-z A-Z 0-9 - . _
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95)) return true;
  }
  return false;
}

/** Longest `Host` value accepted: a 253-character name (or a bracketed IPv6 literal) and a port. */
export const MAX_HOST_LENGTH = 261;

/**
 * True when a `Host` header value cannot name a site: two values (the server joins duplicate headers with `, `), a
 * port that is not 1–5 digits up to 65535, characters no host name has, or more than MAX_HOST_LENGTH characters. Such a
 * request is answered 400 before any cache sees the value. A missing or empty header is not malformed here (the
 * default site, or the 404 page). No allocation: it runs for every request of the scan host.
 */
export function malformedHost(host: string | undefined): boolean {
  if (host === undefined || host.length === 0) return false;
  const n = host.length;
  if (n > MAX_HOST_LENGTH) return true;
  let colon: number;
  if (host.charCodeAt(0) === 91 /* [ */) {
    const end = host.indexOf(']');
    if (end < 2) return true;
    for (let i = 1; i < end; i++) {
      const c = host.charCodeAt(i);
      // hex digits, ':' and '.' (an IPv4-mapped tail)
      if (!((c >= 48 && c <= 58) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70) || c === 46)) return true;
    }
    if (end + 1 === n) return false;
    if (host.charCodeAt(end + 1) !== 58 /* : */) return true;
    colon = end + 1;
  } else {
    colon = host.indexOf(':');
    if (colon < 0) return badNameChar(host, 0, n);
    if (colon === 0 || badNameChar(host, 0, colon)) return true;
  }
  const digits = n - colon - 1;
  if (digits < 1 || digits > 5) return true;
  let port = 0;
  for (let i = colon + 1; i < n; i++) {
    const c = host.charCodeAt(i);
    if (c < 48 || c > 57) return true;
    port = port * 10 + (c - 48);
  }
  return port > 65535;
}
