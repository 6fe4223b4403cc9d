import type { Gs1Link } from '../resolver-data';

interface Weighted {
  value: string;
  q: number;
}

/** `en-GB,en;q=0.8,*;q=0.1` → ranges by preference (q > 0), lowercased; stable for equal weights. */
export function parseWeightedHeader(header: string | undefined): Weighted[] {
  if (!header) return [];
  const items = header.split(',').map((part, index) => {
    const [value, ...params] = part.trim().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    return { value: value.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, index };
  });
  return items
    .filter((i) => i.value && i.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map(({ value, q }) => ({ value, q }));
}

/** `en` matches `en` and `en-gb`; `en-gb` matches `en-gb` and, as a fallback, `en`. */
function languageMatches(hreflang: string, range: string): boolean {
  const tag = hreflang.toLowerCase();
  return tag === range || tag.startsWith(`${range}-`) || range.startsWith(`${tag}-`);
}

/**
 * Links whose `hreflang` best matches Accept-Language: the most preferred range with a match wins, an exact tag
 * before a prefix. Without a match, the language-neutral links (no `hreflang`) if any, else all of them.
 */
export function pickByLanguage(links: Gs1Link[], acceptLanguage: string | undefined): { links: Gs1Link[]; matched: boolean } {
  for (const { value: range } of parseWeightedHeader(acceptLanguage)) {
    if (range === '*') continue;
    const exact = links.filter((l) => l.hreflang?.some((h) => h.toLowerCase() === range));
    if (exact.length) return { links: exact, matched: true };
    const near = links.filter((l) => l.hreflang?.some((h) => languageMatches(h, range)));
    if (near.length) return { links: near, matched: true };
  }
  const neutral = links.filter((l) => !l.hreflang?.length);
  return { links: neutral.length ? neutral : links, matched: false };
}

function mediaMatches(type: string, range: string): boolean {
  const t = type.toLowerCase().split(';')[0].trim();
  if (range === '*/*') return true;
  if (range.endsWith('/*')) return t.startsWith(range.slice(0, -1));
  return t === range.split(';')[0].trim();
}

/** Links whose `type` the Accept header names (wildcards aside); all of them when none does. */
export function pickByMediaType(links: Gs1Link[], accept: string | undefined): Gs1Link[] {
  const ranges = parseWeightedHeader(accept).map((r) => r.value).filter((r) => r !== '*/*');
  for (const range of ranges) {
    const hits = links.filter((l) => l.type && mediaMatches(l.type, range));
    if (hits.length) return hits;
  }
  return links;
}

/** True when the Accept header asks for a linkset (`application/linkset+json`, q > 0). */
export function acceptsLinkset(accept: string | undefined): boolean {
  return parseWeightedHeader(accept).some((r) => r.value.split(';')[0].trim() === 'application/linkset+json');
}
