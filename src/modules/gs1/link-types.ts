import linkTypeData from './data/gs1-link-types.json';
import { Gs1Error } from './gs1.error';

/** The GS1 Web Vocabulary namespace that link-type keys use in linksets. */
export const GS1_VOC = 'https://gs1.org/voc/';
export const DEFAULT_LINK = `${GS1_VOC}defaultLink`;
export const DEFAULT_LINK_MULTI = `${GS1_VOC}defaultLinkMulti`;

const TYPES: Record<string, { title: string; description?: string }> = linkTypeData.linkTypes;
/** Spellings of the namespace that GS1 and its tools use: the CURIE prefix and three URIs. */
const PREFIXES = ['gs1:', 'https://gs1.org/voc/', 'http://gs1.org/voc/', 'https://ref.gs1.org/voc/', 'https://www.gs1.org/voc/'];

/** The full URI of a GS1 link type given as `gs1:pip` or a vocabulary URI; null when it is not in the vocabulary. */
export function linkTypeUri(input: string): string | null {
  const prefix = PREFIXES.find((p) => input.startsWith(p));
  const name = prefix ? input.slice(prefix.length) : null;
  return name && Object.hasOwn(TYPES, name) ? GS1_VOC + name : null;
}

/** Like linkTypeUri, but refuses an unknown type with GS1_INVALID_LINK_TYPE naming `field`. */
export function normalizeLinkType(input: unknown, field: string): string {
  const uri = typeof input === 'string' ? linkTypeUri(input) : null;
  if (!uri) {
    throw new Gs1Error('GS1_INVALID_LINK_TYPE', field, `${JSON.stringify(input)} is not a GS1 link type (use gs1:pip or https://gs1.org/voc/pip)`);
  }
  return uri;
}

/** The vocabulary's label of a link type URI (`https://gs1.org/voc/pip` → "Product Information Page"). */
export function linkTypeLabel(uri: string): string {
  return TYPES[uri.slice(GS1_VOC.length)]?.title ?? uri;
}

/** Every link type of the shipped vocabulary, as full URIs with labels. */
export function gs1LinkTypes(): { uri: string; curie: string; title: string }[] {
  return Object.entries(TYPES).map(([name, t]) => ({ uri: GS1_VOC + name, curie: `gs1:${name}`, title: t.title }));
}
