import type { ServerResponse } from 'node:http';
import { SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY } from '../../common/http/client-address';

/**
 * The scan host's 302, written with a head composed here rather than by `res.writeHead`.
 *
 * Why: a redirect carries eight headers (Location, Cache-Control, Content-Length, X-Content-Type-Options,
 * Referrer-Policy, Request-Id, Scanlink-Version, Date; HSTS over https). `writeHead` checks every name and value
 * against two regular expressions, lower-cases names to look for the ones it treats specially, and joins them one by
 * one. Here every part but the Location, the request id and the date is fixed at start, and the id is ours. The
 * Location values come from `new URL(…).href` (ASCII only), yet each is still tested here with Node's own rule for a
 * header value, so that no stored value can ever add a line to the head (one that fails goes through `writeHead`,
 * which refuses it). Measured on a bare Node server, the head costs what three headers cost through `writeHead`
 * (about 2.7 µs less a redirect than eight of them).
 *
 * What Node's `ServerResponse` adds itself is reproduced exactly (`_storeHeader` in Node's `_http_outgoing.js`):
 * `Date` when `sendDate` is on, and `Connection: keep-alive` + `Keep-Alive: timeout=N[, max=M]`, or
 * `Connection: close` (and the connection ends after the answer) when the request or the server asks for it. The
 * response then ends through Node as usual (`res.end()`: 'finish', keep-alive, pipelining, the access log are
 * untouched). A response object that does not look like Node's (no `_header` slot, no `shouldKeepAlive`) gets
 * `writeHead` with the same headers. `redirect-head.spec.ts` compares the bytes of both ways over real sockets.
 */

/** The fixed headers between Location and Request-Id, the same for every redirect. */
const FIXED_HEADERS: readonly (readonly [string, string])[] = [['Cache-Control', 'no-store'], ['Content-Length', '0'], ...Object.entries(SECURITY_HEADERS)];
/** FIXED_HEADERS as head lines, from the end of the Location line to the Request-Id name. */
const FIXED = `\r\n${FIXED_HEADERS.map(([name, value]) => `${name}: ${value}\r\n`).join('')}Request-Id: `;
const HSTS_LINE = `Strict-Transport-Security: ${STRICT_TRANSPORT_SECURITY}\r\n`;
/** A character a header value may not hold (Node's `checkInvalidHeaderChar`): CR, LF and the other controls. */
const INVALID_HEADER_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/** Node's private fields this relies on (OutgoingMessage / ServerResponse; the spec checks them on the running Node). */
interface NodeResponse {
  _header: string | null;
  _headerSent: boolean;
  _last: boolean;
  _removedConnection: boolean;
  _expect_continue?: boolean;
  _sent100?: boolean;
  _keepAliveTimeout?: number;
  _defaultKeepAlive?: boolean;
  _maxRequestsPerSocket?: number;
  maxRequestsOnConnectionReached?: boolean;
  shouldKeepAlive: boolean;
  sendDate: boolean;
  statusMessage: string;
}

let dateValue = '';
let dateUntil = 0;

/** The `Date` header's value, made once a second (as Node does). */
function httpDate(): string {
  const now = Date.now();
  if (now >= dateUntil) {
    dateValue = new Date(now).toUTCString();
    dateUntil = now - (now % 1000) + 1000;
  }
  return dateValue;
}

/** Whether the response has the fields this writes, untouched (no header set, no head written yet). */
function composable(res: ServerResponse): boolean {
  const r = res as unknown as NodeResponse;
  return r._header === null && typeof r.shouldKeepAlive === 'boolean' && r._removedConnection === false && typeof r.sendDate === 'boolean' && res.getHeaderNames().length === 0;
}

let keepAliveFor: [timeout: number, max: number | undefined] = [0, undefined];
let keepAliveLine = '';

/** `Connection: keep-alive` and `Keep-Alive: timeout=N[, max=M]`, made again only when the server's settings change
 * (the same for every request of a server: no number is turned into a string per redirect). */
function keepAliveLines(timeout: number, maxRequests: number | undefined): string {
  if (keepAliveFor[0] !== timeout || keepAliveFor[1] !== maxRequests) {
    const max = ~~(maxRequests ?? 0) > 0 ? `, max=${maxRequests}` : '';
    keepAliveLine = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(timeout / 1000)}${max}\r\n`;
    keepAliveFor = [timeout, maxRequests];
  }
  return keepAliveLine;
}

/** The `Connection` / `Keep-Alive` lines Node would add (Content-Length is always given here). */
function connectionLines(r: NodeResponse): string {
  if (r._expect_continue && !r._sent100) r.shouldKeepAlive = false; // as writeHead: a 100 never sent, no keep-alive
  if (r.shouldKeepAlive && r.maxRequestsOnConnectionReached) return 'Connection: close\r\n';
  if (r.shouldKeepAlive) {
    if (r._keepAliveTimeout && r._defaultKeepAlive) return keepAliveLines(r._keepAliveTimeout, r._maxRequestsPerSocket);
    return 'Connection: keep-alive\r\n';
  }
  r._last = true;
  return 'Connection: close\r\n';
}

/**
 * Writes the scan host's 302 to `location` and ends the response. `location` must already be safe in a header (no
 * control characters: the code cache's Location values are); `requestId` and `version` are the server's own.
 */
export function writeRedirect(res: ServerResponse, location: string, requestId: string, version: string, https: boolean): void {
  if (INVALID_HEADER_CHAR.test(location) || !composable(res)) {
    const head = ['Location', location, ...FIXED_HEADERS.flat(), 'Request-Id', requestId, 'Scanlink-Version', version];
    if (https) head.push('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    res.writeHead(302, head);
    res.end();
    return;
  }
  const r = res as unknown as NodeResponse;
  res.statusCode = 302;
  r.statusMessage = 'Found';
  let head = 'HTTP/1.1 302 Found\r\nLocation: ' + location + FIXED + requestId + '\r\nScanlink-Version: ' + version + '\r\n';
  if (https) head += HSTS_LINE;
  if (r.sendDate) head += 'Date: ' + httpDate() + '\r\n';
  r._header = head + connectionLines(r) + '\r\n';
  r._headerSent = false;
  res.end();
}
