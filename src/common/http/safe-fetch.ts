import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector, fetch as undiciFetch, type Headers } from 'undici';

/** Outbound HTTP for anything a user names (webhook URLs, logo URLs): every connection is checked at connect time,
 * after DNS resolution, so neither an IP literal, a hostname that resolves to a private address, nor a DNS rebinding
 * between validation and connection reaches loopback, private, link-local or metadata addresses. */

export class SsrfBlockedError extends Error {
  readonly code = 'SSRF_BLOCKED';
}

/** True only for globally routable unicast addresses. IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible
 * (`::a.b.c.d`, deprecated but still routed to the IPv4 address by some stacks) IPv6 addresses are judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let addr = ipaddr.parse(address);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    const compatible = v6.parts.slice(0, 6).every((p) => p === 0) && (v6.parts[6] !== 0 || v6.parts[7] > 1);
    if (v6.isIPv4MappedAddress() || compatible) addr = ipaddr.IPv4.parse(`${v6.parts[6] >> 8}.${v6.parts[6] & 255}.${v6.parts[7] >> 8}.${v6.parts[7] & 255}`);
  }
  return addr.range() === 'unicast';
}

/** Lower case, without IPv6 brackets or the root label's trailing dot (`metadata.google.internal.` is the same host
 * as `metadata.google.internal`, and must meet the same refusals). */
function normalizeHost(host: string): string {
  return host.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
}

interface AllowEntry {
  host: string;
  /** Undefined: every port. */
  port?: number;
}

/** An allow-list entry: `host`, `host:port`, `[v6]` or `[v6]:port` (a bare IPv6 literal has no port). */
function parseAllowEntry(raw: string): AllowEntry {
  const entry = raw.trim().toLowerCase();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] ? Number(bracketed[2]) : undefined };
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort) return { host: withPort[1], port: Number(withPort[2]) };
  return { host: normalizeHost(entry) };
}

/** Whether a development allow-list (WEBHOOK_ALLOW_HOSTS, LOGO_ALLOW_HOSTS) exempts this host and port from the
 * address check. An entry naming a port exempts that port only (a logo fetch must not reach Redis on the same host). */
export function isAllowListed(allowHosts: string[] | undefined, host: string, port: number): boolean {
  const h = normalizeHost(host);
  return (allowHosts ?? []).map(parseAllowEntry).some((e) => e.host === h && (e.port === undefined || e.port === port));
}

/** The port a URL connects to. */
export const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

export interface SafeAgentOptions {
  /** Hostnames (or IP literals) exempt from the address check: local development and tests only. */
  allowHosts?: string[];
  connectTimeoutMs?: number;
}

export function createSafeAgent(opts: SafeAgentOptions = {}): Agent {
  const allow = new Set((opts.allowHosts ?? []).map((e) => parseAllowEntry(e).host));
  const lookup = (hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...(options as object), all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const bad = allow.has(normalizeHost(hostname)) ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (bad) return callback(new SsrfBlockedError(`${hostname} resolves to a non-public address (${bad.address})`));
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
  const base = buildConnector({ timeout: opts.connectTimeoutMs ?? 5000, lookup } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (options, callback) => {
    const host = normalizeHost(options.hostname);
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    const allowedHere = isAllowListed(opts.allowHosts, host, port);
    // An allow-listed host is exempt on the ports its entries name only (the lookup exempts it by name).
    if (allow.has(host) && !allowedHere) return callback(new SsrfBlockedError(`${host} is allowed on other ports only`), null);
    if (isIP(host) && !allowedHere && !isPublicAddress(host)) {
      return callback(new SsrfBlockedError(`${host} is not a public address`), null);
    }
    return base(options, callback);
  };
  return new Agent({ connect });
}

/** Static check at validation time (the connect-time check still runs on every request). */
export function checkUrlTarget(rawUrl: string, opts: { allowHosts?: string[]; requireHttps?: boolean } = {}): URL {
  // The URL parser trims spaces; a stored value must be the URL itself.
  if (rawUrl !== rawUrl.trim()) throw new SsrfBlockedError('the URL must not start or end with spaces');
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new SsrfBlockedError('not a valid URL');
  }
  const host = normalizeHost(url.hostname);
  const listed = (opts.allowHosts ?? []).some((e) => parseAllowEntry(e).host === host);
  const allowed = isAllowListed(opts.allowHosts, host, portOf(url));
  if (listed && !allowed) throw new SsrfBlockedError(`${host} is allowed on other ports only`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (allowed || !opts.requireHttps))) {
    throw new SsrfBlockedError(opts.requireHttps ? 'the URL must use https' : 'the URL must use http or https');
  }
  if (url.username || url.password) throw new SsrfBlockedError('the URL must not contain credentials');
  if (!allowed) {
    if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.internal') || host.endsWith('.local')) {
      throw new SsrfBlockedError(`${host} is not a public host`);
    }
    if (isIP(host) && !isPublicAddress(host)) throw new SsrfBlockedError(`${host} is not a public address`);
  }
  return url;
}

export interface SafeFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  /** The body is cut (truncate) or refused (error) beyond this many bytes. */
  maxBytes: number;
  onOversize?: 'truncate' | 'error';
  /** Redirects are never followed automatically; `follow` re-checks each hop through the same agent. */
  maxRedirects?: number;
}

export interface SafeResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  truncated: boolean;
  url: string;
}

export class ResponseTooLargeError extends Error {}

export async function safeFetch(agent: Agent, url: string, opts: SafeFetchOptions): Promise<SafeResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs);
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const res = await undiciFetch(current, {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        body: opts.body,
        redirect: 'manual',
        dispatcher: agent,
        signal: controller.signal,
      });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location && hop < (opts.maxRedirects ?? 0)) {
        await res.body?.cancel();
        current = new URL(location, current).toString();
        if (!/^https?:$/.test(new URL(current).protocol)) throw new SsrfBlockedError('redirect to a non-http URL');
        continue;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      if (res.body) {
        const reader = res.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const chunk = Buffer.from(value);
          if (size + chunk.length > opts.maxBytes) {
            if ((opts.onOversize ?? 'truncate') === 'error') {
              await reader.cancel();
              throw new ResponseTooLargeError(`response is larger than ${opts.maxBytes} bytes`);
            }
            chunks.push(chunk.subarray(0, opts.maxBytes - size));
            size = opts.maxBytes;
            truncated = true;
            await reader.cancel();
            break;
          }
          chunks.push(chunk);
          size += chunk.length;
        }
      }
      return { status: res.status, headers: res.headers, body: Buffer.concat(chunks), truncated, url: current };
    }
  } catch (err) {
    // fetch wraps connector errors: surface the SSRF refusal itself.
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof SsrfBlockedError) throw cause;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
