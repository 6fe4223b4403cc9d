import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY } from '../../common/http/client-address';
import { type ScanSite, siteKey } from '../domains/scan-site';
import type { OwnPathAnswer, OwnPaths } from '../targets/target-handler';
import type { OwnPathBasis } from './own-path-memo';
import type { ScanEntry } from './scan-answer';
import type { ScanCodeCache } from './scan-code-cache';
import type { CachedCode } from './scan-contract';
import { renderStatusPage } from '../hosted-pages/status-pages';
import { renderExpiredPage } from '../hosted-pages/link-control-pages';

const EXPIRED_PAGE = renderExpiredPage();
const EXPIRED_HTML = EXPIRED_PAGE.body.toString();

/** A GS1 code past its `expires_at` (docs/link-controls.md): every link type and the linkset answer 302 to
 * `expired_url`, or the 410 expired page. An answer that would have counted still counts (as an expired scan). */
function expiredAnswer(code: CachedCode, counted: boolean): OwnPathAnswer {
  const countCodeId = counted ? code.id : undefined;
  if (code.expiredUrl) return { status: 302, headers: { Location: code.expiredUrl, 'Cache-Control': 'no-store' }, countCodeId };
  return { status: 410, headers: { ...EXPIRED_PAGE.headers }, body: EXPIRED_HTML, countCodeId };
}

/** Headers the scan host sets itself on every answer (a renderer's or an answer's own copy is left out). */
const OWN_HEADERS = new Set(['content-length', 'request-id', 'scanlink-version']);

/** Copies `from` into `into`, leaving out the headers the scan host sets itself. */
export function copyForeignHeaders(from: Readonly<Record<string, OutgoingHttpHeader>>, into: OutgoingHttpHeaders): void {
  for (const [name, value] of Object.entries(from)) if (!OWN_HEADERS.has(name.toLowerCase())) into[name] = value;
}

/** Sets `name` in `headers` once: a copy under another case (`cache-control` / `Cache-Control`) is replaced. Used while
 * preparing an answer (once per decided answer, not per request). */
function setOnce(headers: OutgoingHttpHeaders, name: string, value: OutgoingHttpHeader): void {
  const lower = name.toLowerCase();
  for (const existing of Object.keys(headers)) if (existing.toLowerCase() === lower) delete headers[existing];
  headers[name] = value;
}


export interface OwnPathResult {
  answer: OwnPathAnswer;
  /** the code a GET scan counts for, when the answer names one */
  counted?: CachedCode;
  /** the cache keys read and the entries found there, when every one was in memory (what a memo is valid for) */
  basis?: OwnPathBasis;
  /** the counted scan came after the code's expiry */
  expired?: boolean;
}

/**
 * Answers a request on a path a target type owns (GS1 Digital Link, docs/gs1.md): the type says which codes it needs
 * (cache keys), they are read through the same code cache as short codes, on the request's site (synchronously when
 * every one is in memory), and the type decides the answer; `origin` is the site's (anchors, the resolver root). Returns the result, or a promise of it on a cache miss.
 */
export function ownPathAnswer(
  paths: OwnPaths,
  req: IncomingMessage,
  site: ScanSite,
  origin: string,
  cache: ScanCodeCache,
): OwnPathResult | Promise<OwnPathResult> {
  const accept = req.headers.accept;
  const plan = paths.plan({ method: req.method ?? 'GET', url: req.url ?? '/', accept, acceptLanguage: req.headers['accept-language'], origin });
  if (!('keys' in plan)) return { answer: plan.answer, basis: { keys: [], entries: [] } };
  const keys = plan.keys.map((k) => siteKey(site, k));
  const entries: (ScanEntry | undefined)[] = keys.map((k) => cache.peek(k));
  const decide = (found: (ScanEntry | undefined)[]): OwnPathResult => {
    const codes = found.flatMap((e) => (e?.code ? [e.code] : []));
    const answer = plan.answer(codes);
    const counted = answer.countCodeId ? codes.find((c) => c.id === answer.countCodeId) : undefined;
    const served = counted ?? (answer.servesCodeId ? codes.find((c) => c.id === answer.servesCodeId) : undefined);
    if (served?.expiresAt != null && Date.now() >= served.expiresAt) {
      return counted ? { answer: expiredAnswer(counted, true), counted, expired: true } : { answer: expiredAnswer(served, false) };
    }
    return { answer, counted };
  };
  // An answer that depends on the clock (a code with an expiry) is never memoized.
  const timed = (found: (ScanEntry | undefined)[]) => found.some((e) => e?.code?.expiresAt != null);
  if (entries.every((e) => e !== undefined)) return timed(entries) ? decide(entries) : { ...decide(entries), basis: { keys, entries: entries as ScanEntry[] } };
  return Promise.all(plan.keys.map((k, i) => entries[i] ?? cache.load(site, k))).then(decide);
}

/** An own-path answer as written: status, header names and values in order (Request-Id's value at `requestIdAt`, set
 * per request), and the body. Built once per decided answer, so a memoized answer is written without re-deciding. */
export interface PreparedAnswer {
  status: number;
  head: OutgoingHttpHeader[];
  requestIdAt: number;
  body?: Buffer;
}

/** Prepares an own-path answer; a `statusPage` answer gets the scan host's page with the answer's headers added. */
export function prepareOwnPathAnswer(answer: OwnPathAnswer, version: string): PreparedAnswer {
  let body: Buffer | undefined;
  const headers: OutgoingHttpHeaders = {};
  if (answer.statusPage) {
    const page = renderStatusPage(answer.status as 400 | 404 | 410);
    Object.assign(headers, page.headers);
    body = typeof page.body === 'string' ? Buffer.from(page.body) : page.body;
  } else if (answer.body !== undefined) body = Buffer.from(answer.body);
  // The answer's own headers over the status page's, each sent once (the resolver's 400 page had two Cache-Control).
  for (const [name, value] of Object.entries(answer.headers)) if (!OWN_HEADERS.has(name.toLowerCase())) setOnce(headers, name, value);
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!Object.keys(headers).some((h) => h.toLowerCase() === name.toLowerCase())) headers[name] = value;
  const all: OutgoingHttpHeaders = { ...headers, 'Request-Id': '', 'Scanlink-Version': version, 'Content-Length': String(body?.length ?? 0) };
  const head: OutgoingHttpHeader[] = [];
  let requestIdAt = 0;
  for (const [name, value] of Object.entries(all)) {
    if (value === undefined) continue;
    if (name === 'Request-Id') requestIdAt = head.length + 1;
    head.push(name, value);
  }
  return { status: answer.status, head, requestIdAt, body };
}

/** Writes a prepared answer (no body for HEAD) with this request's id, and HSTS when the request arrived over https;
 * returns the status. */
export function writePreparedAnswer(req: IncomingMessage, res: ServerResponse, prepared: PreparedAnswer, requestId: string, https = false): number {
  const head = prepared.head.slice();
  head[prepared.requestIdAt] = requestId;
  if (https) head.push('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  res.writeHead(prepared.status, head);
  res.end(req.method === 'HEAD' ? undefined : prepared.body);
  return prepared.status;
}
