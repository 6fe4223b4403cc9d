import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { type ScanSite, siteKey } from '../domains/scan-site';
import type { OwnPathAnswer, OwnPaths } from '../qr-codes/targets/target-handler';
import type { ScanEntry } from './scan-answer';
import type { ScanCodeCache } from './scan-code-cache';
import type { CachedCode } from './scan-contract';
import { renderStatusPage } from './status-pages';

/** Headers the writer sets itself (an answer's own copy is left out). */
const OWN_HEADERS = new Set(['content-length', 'request-id', 'scanlink-version']);

export interface OwnPathResult {
  answer: OwnPathAnswer;
  /** the code a GET scan counts for, when the answer names one */
  counted?: CachedCode;
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
  if (!('keys' in plan)) return { answer: plan.answer };
  const entries: (ScanEntry | undefined)[] = plan.keys.map((k) => cache.peek(siteKey(site, k)));
  const decide = (found: (ScanEntry | undefined)[]): OwnPathResult => {
    const codes = found.flatMap((e) => (e?.code ? [e.code] : []));
    const answer = plan.answer(codes);
    return { answer, counted: answer.countCodeId ? codes.find((c) => c.id === answer.countCodeId) : undefined };
  };
  if (entries.every((e) => e !== undefined)) return decide(entries);
  return Promise.all(plan.keys.map((k, i) => entries[i] ?? cache.load(site, k))).then(decide);
}

/** Writes an own-path answer; a `statusPage` answer gets the scan host's page with the answer's headers added. */
export function writeOwnPathAnswer(req: IncomingMessage, res: ServerResponse, answer: OwnPathAnswer, base: OutgoingHttpHeaders): number {
  let body: Buffer | undefined;
  const headers: OutgoingHttpHeaders = {};
  if (answer.statusPage) {
    const page = renderStatusPage(answer.status as 400 | 404 | 410);
    Object.assign(headers, page.headers);
    body = typeof page.body === 'string' ? Buffer.from(page.body) : page.body;
  } else if (answer.body !== undefined) body = Buffer.from(answer.body);
  for (const [name, value] of Object.entries(answer.headers)) if (!OWN_HEADERS.has(name.toLowerCase())) headers[name] = value;
  res.writeHead(answer.status, { ...headers, ...base, 'Content-Length': String(body?.length ?? 0) });
  res.end(req.method === 'HEAD' ? undefined : body);
  return answer.status;
}
