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
