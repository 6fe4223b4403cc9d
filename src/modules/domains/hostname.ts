import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Characters that make the value a URL, a host with a port, an IPv6 literal or a path rather than a host name. */
const NOT_A_HOST = /[/\\:@?#[\]%\s]/;

/** Special-use names (RFC 6761, RFC 6762) that only ever resolve locally, or never: no visitor's phone can reach a
 * scan URL there (`*.localhost` is the local scan host's own). */
const LOCAL_ONLY_TLDS = new Set(['localhost', 'local', 'invalid']);

export type HostnameCheck = { hostname: string } | { error: string };

/**
 * A custom domain's host name as it is stored and compared: lower case, IDNA (UTS #46, as in WHATWG URLs) to
 * punycode, no trailing dot. Refuses URLs, IP literals (also the forms URL parsers read as IPv4, like `0x7f.1`),
 * single-label names, labels that are not letters, digits and inner hyphens, the service's own hosts, and names under
 * `.localhost`, `.local` and `.invalid`.
 */
export function normalizeHostname(input: string, ownHosts: readonly string[]): HostnameCheck {
  if (input.length === 0) return { error: 'hostname must not be empty' };
  if (input.length > 1000) return { error: 'hostname must be at most 253 characters' };
  if (NOT_A_HOST.test(input)) {
    return { error: 'hostname must be a bare host name such as go.example.com (no scheme, port, path or spaces)' };
  }
  const lower = input.toLowerCase().replace(/\.$/, '');
  // A last label of digits (or 0x…) is what URL parsers read as IPv4 (`127.1`, `0x7f.1`).
  if (isIP(lower) || /(^|\.)(\d+|0x[0-9a-f]*)$/.test(lower)) return { error: 'hostname must be a domain name, not an IP address' };
  const ascii = domainToASCII(lower);
  if (!ascii) return { error: `hostname '${input}' is not a valid domain name` };
  if (isIP(ascii)) return { error: 'hostname must be a domain name, not an IP address' };
  if (ascii.length > 253) return { error: 'hostname must be at most 253 characters (in punycode)' };
  const labels = ascii.split('.');
  if (labels.length < 2) return { error: 'hostname must have at least two labels, such as go.example.com' };
  if (!labels.every((l) => LABEL.test(l))) {
    return { error: `hostname '${input}' is not a valid domain name (labels of letters, digits and inner hyphens, at most 63 characters)` };
  }
  if (ownHosts.includes(ascii)) return { error: `hostname '${ascii}' is one of the service's own hosts` };
  if (LOCAL_ONLY_TLDS.has(labels[labels.length - 1])) {
    return { error: `hostname '${ascii}' is not a public domain name (.${labels[labels.length - 1]} names never resolve on the internet)` };
  }
  return { hostname: ascii };
}

/** The host names the service itself answers on (API, scan host, images): never claimable as custom domains. */
export function serviceHosts(urls: readonly string[]): string[] {
  return [...new Set(urls.map((u) => new URL(u).hostname.toLowerCase().replace(/\.$/, '')))];
}
