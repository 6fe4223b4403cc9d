import { DEFAULT_LINK, linkTypeLabel } from '../link-types';
import type { Gs1Link, Gs1Override } from '../resolver-data';

/** RFC 9264 link target object, limited to the members GS1's linkset schema allows. */
export interface LinkTarget {
  href: string;
  title: string;
  hreflang?: string[];
  type?: string;
}

/** One context object: `anchor`, `itemDescription`, and link-type URIs → targets. */
export type LinksetContext = { anchor: string; itemDescription: string } & { [linkType: string]: LinkTarget[] | string };

export interface Linkset {
  linkset: LinksetContext[];
}

/** What a dynamic GS1 code stores for the resolver. */
export interface Gs1ResolverRecord {
  /** the code's identifier: canonical path of primary key and qualifiers */
  path: string;
  /** the code's name; the linkset's itemDescription (the Digital Link URI when null) */
  name: string | null;
  /** the gs1:defaultLink of the code's own level */
  destination: string;
  links: Gs1Link[];
  /** deeper levels, each with its own default link */
  overrides: Gs1Override[];
}

/** A level of the identifier tree: a code's own identifier, or one of its overrides. */
export interface ResolverLevel {
  path: string;
  defaultHref: string;
  links: Gs1Link[];
  /** the code's name, null when unnamed */
  name: string | null;
}

/**
 * The levels that the records define, by path. A code's own level wins over an ancestor code's override of the
 * same path (the more specific code was created for it).
 */
export function levelsOf(records: Gs1ResolverRecord[]): Map<string, ResolverLevel> {
  const levels = new Map<string, ResolverLevel>();
  for (const r of records) for (const o of r.overrides) if (!levels.has(o.path)) levels.set(o.path, { path: o.path, defaultHref: o.href, links: [], name: r.name });
  for (const r of records) levels.set(r.path, { path: r.path, defaultHref: r.destination, links: r.links, name: r.name });
  return levels;
}

export function linkTarget(link: Gs1Link): LinkTarget {
  const target: LinkTarget = { href: link.href, title: link.title || linkTypeLabel(link.linkType) };
  if (link.hreflang?.length) target.hreflang = link.hreflang;
  if (link.type) target.type = link.type;
  return target;
}

/** A context object for one level: the default link (title only, as GS1 requires) then the links by type. */
export function contextObject(level: ResolverLevel, base: string, links = level.links, withDefault = true): LinksetContext {
  const anchor = base + level.path;
  const context: LinksetContext = { anchor, itemDescription: level.name || anchor };
  if (withDefault) context[DEFAULT_LINK] = [{ href: level.defaultHref, title: linkTypeLabel(DEFAULT_LINK) }];
  for (const link of links) {
    const list = (context[link.linkType] ??= []) as LinkTarget[];
    list.push(linkTarget(link));
  }
  return context;
}

/** The linkset of a request: one context object per known level from the primary key down to the request's. */
export function buildLinkset(levels: ResolverLevel[], base: string): Linkset {
  return { linkset: [...levels].sort((a, b) => a.path.length - b.path.length).map((level) => contextObject(level, base)) };
}
