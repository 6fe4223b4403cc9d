import { createHmac } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
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

/** A client address as it may be kept in a short-lived rate-limit key: an HMAC with APP_SECRET, never the address. */
export function clientAddressKey(secret: string, address: string | undefined): string {
  return createHmac('sha256', secret).update(address ?? 'unknown').digest('hex');
}
