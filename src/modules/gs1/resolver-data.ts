import { Gs1Error } from './gs1.error';
import { checkIdentifier, identifierPath, type AiValue } from './identifier';
import { DEFAULT_LINK, normalizeLinkType } from './link-types';
import { decodeDlValue } from './percent-encoding';

/** A link of the GS1 creation body (docs/gs1.md) (`links[]`), as received. */
export interface Gs1LinkInput {
  linkType: string;
  href: string;
  title?: string;
  hreflang?: string[];
}

/** A stored link: `linkType` is always the full vocabulary URI (`https://gs1.org/voc/pip`). */
export interface Gs1Link {
  linkType: string;
  href: string;
  title?: string;
  hreflang?: string[];
  /** media type of the target, when known (not in the creation body today) */
  type?: string;
}

/** A stored override: `path` is the canonical full path of its level (`/01/09506000134352/10/LOT42`). */
export interface Gs1Override {
  path: string;
  href: string;
}

const HREFLANG = /^[A-Za-z]{2}(-[A-Za-z]{2})?$/;

/**
 * Validates `links[]`: GS1 link types (`gs1:pip` or a vocabulary URI, stored as the full URI) and `hreflang` tags of
 * the form `xx` or `xx-xx` (what GS1's linkset schema accepts). The default link is `destination`, never a link.
 * `href` and `title` are the HTTP layer's to check (URL rules, lengths).
 */
export function normalizeLinks(links: Gs1LinkInput[], field = 'links'): Gs1Link[] {
  return links.map((link, i) => {
    const linkType = normalizeLinkType(link.linkType, `${field}[${i}].linkType`);
    if (linkType === DEFAULT_LINK) {
      throw new Gs1Error('GS1_INVALID_LINK_TYPE', `${field}[${i}].linkType`, 'The default link is `destination`, not a link');
    }
    (link.hreflang ?? []).forEach((tag, j) => {
      if (typeof tag !== 'string' || !HREFLANG.test(tag)) {
        throw new Gs1Error('GS1_INVALID_HREFLANG', `${field}[${i}].hreflang[${j}]`, `${JSON.stringify(tag)} must be a language tag like 'en' or 'en-GB'`);
      }
    });
    const out: Gs1Link = { linkType, href: link.href };
    if (link.title !== undefined) out.title = link.title;
    if (link.hreflang?.length) out.hreflang = [...link.hreflang];
    return out;
  });
}

/**
 * Validates `overrides[]`: each `path` is `<ai>/<value>[/<ai>/<value>…]` below the primary key (values may be
 * percent-encoded), must continue the code's own qualifiers (`10/LOT42/21/7` under a code for `/01/…/10/LOT42`)
 * with a valid qualifier path, and appears once. Returns the canonical full path of each level.
 */
export function normalizeOverrides(
  overrides: { path: string; href: string }[],
  code: { primaryKey: AiValue; qualifiers: AiValue[] },
  field = 'overrides',
): Gs1Override[] {
  const seen = new Set<string>();
  return overrides.map((override, i) => {
    const where = `${field}[${i}].path`;
    const segments = typeof override.path === 'string' ? override.path.replace(/^\/|\/$/g, '').split('/') : [];
    if (!segments.length || segments.length % 2 || segments.some((s) => s === '')) {
      throw new Gs1Error('GS1_INVALID_OVERRIDE_PATH', where, 'An override path is <ai>/<value> pairs below the primary key, e.g. 10/LOT42');
    }
    const qualifiers: AiValue[] = [];
    for (let j = 0; j < segments.length; j += 2) qualifiers.push({ ai: segments[j], value: decodeDlValue(segments[j + 1], where, false) });
    const name = () => where;
    checkIdentifier({ primaryKey: code.primaryKey, qualifiers, attributes: [] }, { primaryKey: name, qualifier: name, attribute: name, qualifierPath: where });
    const extendsCode =
      qualifiers.length > code.qualifiers.length &&
      code.qualifiers.every((q, j) => q.ai === qualifiers[j].ai && q.value === qualifiers[j].value);
    if (!extendsCode) {
      throw new Gs1Error('GS1_INVALID_OVERRIDE_PATH', where, `An override must name a level below the code's identifier ${identifierPath(code.primaryKey, code.qualifiers)}`);
    }
    const path = identifierPath(code.primaryKey, qualifiers);
    if (seen.has(path)) throw new Gs1Error('GS1_DUPLICATE_OVERRIDE', where, `Two overrides for ${path}`);
    seen.add(path);
    return { path, href: override.href };
  });
}
