import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import proxyaddr from '@fastify/proxy-addr';

export type TrustProxy = boolean | ((addr: string, hop: number) => boolean);

/** TRUST_PROXY (proxy-addr syntax: `loopback,10.0.0.0/8,…`, or `true`/`false`) as a trust function. A bad address
 * throws at boot. Fastify takes the same value (its trustProxy accepts a boolean or this function), so the API, the
 * scan host's Nest routes and its hot path agree on the client address. */
export function parseTrustProxy(value: string): TrustProxy {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '*') return true;
  if (v === 'false' || v === '') return false;
  return proxyaddr.compile(value.split(',').map((s) => s.trim()).filter(Boolean));
}

/**
 * The client address: the socket's peer, or the nearest X-Forwarded-For entry not added by a trusted proxy.
 * Used in memory for the geo lookup only; never stored, queued or logged.
 */
export function clientIp(req: IncomingMessage, trust: TrustProxy): string | undefined {
  if (trust === false || req.headers['x-forwarded-for'] === undefined) return req.socket.remoteAddress;
  return proxyaddr(req, trust === true ? () => true : trust);
}

/** `Strict-Transport-Security` on every answer to a request that arrived over https (one year). */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

/** The headers every answer of both hosts carries (docs/security.md): no MIME sniffing and the referrer policy. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
};

/**
 * Whether the request arrived over https: TLS on the socket itself, or `X-Forwarded-Proto: https` (its last entry, the
 * nearest proxy's) from a peer TRUST_PROXY trusts. The same rule as Fastify's `request.protocol` with the same trust
 * function, so the hot path and Fastify's routes agree. Two property reads when no proxy header is present.
 */
export function arrivedOverHttps(req: { headers: IncomingHttpHeaders; socket: { remoteAddress?: string; encrypted?: boolean } }, trust: TrustProxy): boolean {
  const proto = req.headers['x-forwarded-proto'];
  if (typeof proto === 'string' && trust !== false) {
    const address = req.socket.remoteAddress;
    if (address !== undefined && (trust === true || trust(address, 0))) {
      const last = proto.lastIndexOf(',');
      return (last === -1 ? proto : proto.slice(last + 1)).trim().toLowerCase() === 'https';
    }
  }
  // a TLSSocket's `encrypted` is true; a plain Socket has none
  return req.socket.encrypted === true;
}

/** A client address as it may be kept in a short-lived rate-limit key: an HMAC with APP_SECRET, never the address. */
export function clientAddressKey(secret: string, address: string | undefined): string {
  return createHmac('sha256', secret).update(address ?? 'unknown').digest('hex');
}
