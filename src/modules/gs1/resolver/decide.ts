import type { ParsedDigitalLink } from '../digital-link-parser';
import { DEFAULT_LINK, DEFAULT_LINK_MULTI, linkTypeUri } from '../link-types';
import type { Gs1Link } from '../resolver-data';
import { buildLinkset, contextObject, levelsOf, type Gs1ResolverRecord, type Linkset, type ResolverLevel } from './linkset';
import { acceptsLinkset, pickByLanguage, pickByMediaType } from './negotiation';
import { GS1_LINKSET_CONTEXT, GS1_RESOLVER_HEADERS, LINKSET_MEDIA_TYPE } from './well-known';

export interface Gs1ResolverRequest {
  method: string;
  /** the request, parsed and validated by parseDigitalLink (an invalid one is the HTTP layer's 400) */
  dl: ParsedDigitalLink;
  accept?: string;
  acceptLanguage?: string;
  /** `https://scan.example.com`: anchors, the linkset `Link` header */
  origin: string;
}

export type Gs1Answer =
  | { status: 204; headers: Record<string, string> }
  | { status: 307; location: string; headers: Record<string, string>; countable: boolean }
  | { status: 200 | 300; body: Linkset; headers: Record<string, string> }
  | { status: 404; reason: 'unknown_identifier' | 'unknown_link_type' | 'no_link_of_type'; message: string; headers: Record<string, string> };

/** `href` + the request's whole query string (before any fragment, `&` when `href` already has a query). */
export function withQuery(href: string, rawQuery: string): string {
  const query = rawQuery.replace(/^\?/, '');
  if (!query) return href;
  const hash = href.indexOf('#');
  const [base, fragment] = hash < 0 ? [href, ''] : [href.slice(0, hash), href.slice(hash)];
  return `${base}${base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?'}${query}${fragment}`;
}

/**
 * Decides a resolver answer for a valid Digital Link request, given the stored records of every code whose
 * identifier is the request's path or an ancestor of it on that host (the most specific last or first: any order).
 * Pure: no I/O. HEAD is answered like GET; the HTTP layer drops the body.
 */
export function decideGs1Answer(records: Gs1ResolverRecord[], request: Gs1ResolverRequest): Gs1Answer {
  const headers: Record<string, string> = { ...GS1_RESOLVER_HEADERS };
  if (request.method.toUpperCase() === 'OPTIONS') return { status: 204, headers: { ...headers, Allow: 'GET, HEAD, OPTIONS' } };
  const { dl } = request;
  const base = request.origin.replace(/\/+$/, '') + dl.stem;
  const known = levelsOf(records);
  /** the request's known levels, most specific first: unknown lower levels walk up */
  const levels = dl.levels.map((p) => known.get(p)).filter((l): l is ResolverLevel => !!l);
  if (!levels.length) return notFound('unknown_identifier', `No GS1 code for ${dl.identifier.path}`, headers);
  const linksetUrl = `${base}${dl.identifier.path}?linkType=linkset`;
  headers.Link = `<${linksetUrl}>; rel="linkset"; type="${LINKSET_MEDIA_TYPE}"`;
  const wanted = dl.linkType;
  if (wanted === 'linkset' || wanted === 'all' || (wanted === null && acceptsLinkset(request.accept))) {
    return linksetAnswer(200, buildLinkset(levels, base), headers);
  }
  if (wanted !== null) {
    const uri = linkTypeUri(wanted);
    if (!uri) return notFound('unknown_link_type', `${wanted} is not a GS1 link type`, headers);
    if (uri !== DEFAULT_LINK) return redirectToLinkType(uri, levels, base, request, headers);
  }
  return redirect(defaultHref(levels[0], request.acceptLanguage), request, headers);
}

/** The level's default link, unless a gs1:defaultLinkMulti link matches the visitor's language. */
function defaultHref(level: ResolverLevel, acceptLanguage: string | undefined): string {
  const multi = level.links.filter((l) => l.linkType === DEFAULT_LINK_MULTI);
  const picked = multi.length ? pickByLanguage(multi, acceptLanguage) : null;
  return picked?.matched && picked.links.length === 1 ? picked.links[0].href : level.defaultHref;
}

function redirectToLinkType(uri: string, levels: ResolverLevel[], base: string, request: Gs1ResolverRequest, headers: Record<string, string>): Gs1Answer {
  const level = levels.find((l) => l.links.some((link) => link.linkType === uri));
  if (!level) return notFound('no_link_of_type', `No ${uri} link for ${request.dl.identifier.path}`, headers);
  const candidates = level.links.filter((l) => l.linkType === uri);
  const picked = candidates.length > 1 ? pickByMediaType(pickByLanguage(candidates, request.acceptLanguage).links, request.accept) : candidates;
  if (picked.length === 1) return redirect(picked[0].href, request, headers);
  return linksetAnswer(300, { linkset: [contextObject(level, base, picked as Gs1Link[], false)] }, headers);
}

function redirect(href: string, request: Gs1ResolverRequest, headers: Record<string, string>): Gs1Answer {
  return { status: 307, location: withQuery(href, request.dl.rawQuery), headers, countable: request.method.toUpperCase() === 'GET' };
}

function linksetAnswer(status: 200 | 300, body: Linkset, headers: Record<string, string>): Gs1Answer {
  const link = `${headers.Link}, <${GS1_LINKSET_CONTEXT}>; rel="http://www.w3.org/ns/json-ld#context"; type="application/ld+json"`;
  return { status, body, headers: { ...headers, 'Content-Type': LINKSET_MEDIA_TYPE, Link: link } };
}

function notFound(reason: 'unknown_identifier' | 'unknown_link_type' | 'no_link_of_type', message: string, headers: Record<string, string>): Gs1Answer {
  return { status: 404, reason, message, headers };
}
