import { LRUCache } from 'lru-cache';
import { parseDigitalLink, type ParsedDigitalLink } from './digital-link-parser';
import { Gs1Error } from './gs1.error';
import { decideGs1Answer } from './resolver/decide';
import type { Gs1ResolverRecord } from './resolver/linkset';
import { buildResolverDescription, GS1_RESOLVER_HEADERS } from './resolver/well-known';
import type { Gs1StoredTarget } from './stored-target';
import type { OwnPathAnswer, OwnPathCode, OwnPathPlan, OwnPathRequest, OwnPaths } from '../targets/target-handler';

/** A Digital Link path on the scan host: `/{ai}/{value}…` with a 2–4 digit first segment (codes there have no stem). */
const DL_PATH = /^\/\d{2,4}\/[^?]/;
const WELL_KNOWN = /^\/\.well-known\/gs1resolver\/?(?:\?|$)/;
const ALLOWED = new Set(['GET', 'HEAD', 'OPTIONS']);

const headers = (extra: Record<string, string> = {}): Record<string, string> => ({ ...GS1_RESOLVER_HEADERS, ...extra });
const notAllowed = (): OwnPathAnswer => ({ status: 405, headers: headers({ Allow: 'GET, HEAD, OPTIONS', 'Content-Type': 'text/plain; charset=utf-8' }), body: 'Method not allowed' });

function wellKnown(req: OwnPathRequest): OwnPathAnswer {
  if (!ALLOWED.has(req.method)) return notAllowed();
  if (req.method === 'OPTIONS') return { status: 204, headers: headers({ Allow: 'GET, HEAD, OPTIONS' }) };
  const doc = buildResolverDescription({ resolverRoot: req.origin, name: 'Scanlink GS1 resolver', contact: { fn: 'Scanlink' } });
  return { status: 200, headers: headers({ 'Content-Type': 'application/json; charset=utf-8' }), body: JSON.stringify(doc) };
}

/** A GS1 code as the scan cache holds it: its target is what prepareGs1 stored. */
type Gs1Code = OwnPathCode<Gs1StoredTarget>;

function record(code: Gs1Code): Gs1ResolverRecord {
  const t = code.target;
  return { path: t.path, name: code.name, destination: t.default_link ?? '', links: t.links ?? [], overrides: t.overrides ?? [] };
}

/**
 * One workspace's codes among the request's levels (`codes` come most specific first): a primary key's subtree
 * belongs to one workspace per host, so two workspaces' entries never mix in one answer. Codes created before that
 * rule may still conflict (`npm run -s cli -- gs1:conflicts` lists them): the workspace of the least specific level
 * that holds its identifier (a live or trashed code) answers, as the one owning the levels above the others.
 */
function ownerCodes(codes: Gs1Code[]): Gs1Code[] {
  if (codes.length < 2) return codes;
  let owner: string | undefined;
  for (let i = codes.length - 1; i >= 0 && owner === undefined; i--) if (codes[i].status === 'live' || codes[i].status === 'trashed') owner = codes[i].organizationId;
  owner ??= codes[codes.length - 1].organizationId;
  for (const c of codes) if (c.organizationId !== owner) return codes.filter((x) => x.organizationId === owner);
  return codes;
}

/** The code of the request's most specific level that has one: the code a resolver answer is for. */
const ownerOf = (dl: ParsedDigitalLink, active: Gs1Code[]): Gs1Code | undefined => dl.levels.map((p) => active.find((c) => c.target.path === p)).find((c) => c);

/** The answer once the codes of the request's levels are known (any state: the scan cache keeps trashed and paused
 * codes too, so the code's own path answers 404 or 410 as a short code would). */
function resolve(req: OwnPathRequest, dl: ParsedDigitalLink, found: Gs1Code[]): OwnPathAnswer {
  const codes = ownerCodes(found);
  const own = codes.find((c) => c.target.path === dl.identifier.path);
  if (own && (own.status !== 'live' || !own.isActive)) {
    return { status: own.status === 'trashed' ? 404 : 410, headers: headers(), statusPage: true };
  }
  const active = codes.filter((c) => c.status === 'live' && c.isActive);
  const answer = decideGs1Answer(active.map(record), { method: req.method, dl, accept: req.accept, acceptLanguage: req.acceptLanguage, origin: req.origin });
  switch (answer.status) {
    case 204:
      return { status: 204, headers: answer.headers };
    case 307: {
      // The scan counts for the code of the most specific level found (an override belongs to its code). A redirect
      // that is not a scan (HEAD) still serves that code: past its expiry it answers as the GET would.
      const owner = ownerOf(dl, active)?.id;
      return { status: 307, headers: { ...answer.headers, Location: answer.location }, ...(answer.countable ? { countCodeId: owner } : { servesCodeId: owner }) };
    }
    case 200:
    case 300:
      // Not a scan, but the same code's links: past its expiry the linkset is refused as a redirect would be.
      return { status: answer.status, headers: answer.headers, body: JSON.stringify(answer.body), servesCodeId: ownerOf(dl, active)?.id };
    default:
      // A link type the code does not have: once the code has expired, every link type gets the expired answer.
      return { status: 404, headers: answer.headers, statusPage: true, servesCodeId: ownerOf(dl, active)?.id };
  }
}

/** Parsing and validating a Digital Link against the Syntax Dictionary costs several times a whole short-code
 * redirect, and a printed code is scanned by the same URL again and again: valid parses are kept per URL (read-only). */
const PARSED = new LRUCache<string, ParsedDigitalLink>({ max: 5_000 });
function parsed(url: string): ParsedDigitalLink {
  let dl = PARSED.get(url);
  if (!dl) {
    const q = url.indexOf('?');
    dl = parseDigitalLink(q < 0 ? url : url.slice(0, q), q < 0 ? '' : url.slice(q + 1));
    if (url.length <= 1024) PARSED.set(url, dl);
  }
  return dl;
}

/** The scan host's GS1-Conformant Resolver (docs/gs1.md): Digital Link paths and `/.well-known/gs1resolver`. */
export const gs1ResolverPaths: OwnPaths<Gs1StoredTarget> = {
  claims: (url) => DL_PATH.test(url) || WELL_KNOWN.test(url),
  plan(req): OwnPathPlan<Gs1StoredTarget> {
    if (WELL_KNOWN.test(req.url)) return { answer: wellKnown(req) };
    if (!ALLOWED.has(req.method)) return { answer: notAllowed() };
    let dl: ParsedDigitalLink;
    try {
      dl = parsed(req.url);
    } catch (e) {
      if (e instanceof Gs1Error) return { answer: { status: 400, headers: headers(), statusPage: true } };
      throw e;
    }
    if (req.method === 'OPTIONS') return { answer: resolve(req, dl, []) };
    return { keys: dl.levels, answer: (codes) => resolve(req, dl, codes) };
  },
};
