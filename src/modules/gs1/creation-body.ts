import { Gs1Error } from './gs1.error';
import { attributesQuery, checkIdentifier, identifierPath, padGtin, type Gs1Identifier } from './identifier';

/** The identifier parts of the GS1 creation body (docs/gs1.md) (`type: "gs1"`), as received. */
export interface Gs1CreationParts {
  primary_key: { ai: string; value: string };
  qualifiers?: { ai: string; value: string }[];
  /** map of application identifier → value; the query lists them in AI order (JSON objects keep no reliable order) */
  attributes?: Record<string, string>;
}

export interface Gs1CanonicalIdentifier extends Gs1Identifier {
  /** `/01/09506000134352/10/ABC`: primary key and qualifiers, the identifier unique per host */
  path: string;
  /** `17=260101` (no `?`), '' without attributes */
  query: string;
  /** path plus `?query` when there is one: append to `https://host` to get the Digital Link URI */
  pathAndQuery: string;
}

const BODY_FIELDS = {
  primaryKey: (part: 'ai' | 'value') => `primary_key.${part}`,
  qualifier: (i: number, part: 'ai' | 'value') => `qualifiers[${i}].${part}`,
  qualifierPath: 'qualifiers',
};

/**
 * Validates a creation body's `primary_key`, `qualifiers` and `attributes` against the GS1 Syntax Dictionary and
 * returns the canonical Digital Link path and query (GTIN-8/12/13 padded to 14 digits, values percent-encoded).
 * Throws a Gs1Error (`gs1_code`, `field`) on the first rule broken.
 */
export function canonicalizeCreationParts(body: Gs1CreationParts): Gs1CanonicalIdentifier {
  const pk = body.primary_key as unknown;
  if (!pk || typeof pk !== 'object') throw new Gs1Error('GS1_INVALID_PRIMARY_KEY', 'primary_key', 'primary_key must be {ai, value}');
  const attributeEntries = Object.entries(body.attributes ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const primaryKey = { ai: String(body.primary_key.ai), value: body.primary_key.value };
  if (primaryKey.ai === '01' && typeof primaryKey.value === 'string') primaryKey.value = padGtin(primaryKey.value);
  const identifier: Gs1Identifier = {
    primaryKey,
    qualifiers: (body.qualifiers ?? []).map((q) => ({ ai: q?.ai, value: q?.value })),
    attributes: attributeEntries.map(([ai, value]) => ({ ai, value })),
  };
  checkIdentifier(identifier, {
    ...BODY_FIELDS,
    attribute: (i: number) => `attributes.${attributeEntries[i][0]}`,
  });
  return withCanonicalForm(identifier);
}

export function withCanonicalForm(identifier: Gs1Identifier): Gs1CanonicalIdentifier {
  const path = identifierPath(identifier.primaryKey, identifier.qualifiers);
  const query = attributesQuery(identifier.attributes);
  return { ...identifier, path, query, pathAndQuery: query ? `${path}?${query}` : path };
}

/** The Digital Link URI a code encodes: `https://host` (no trailing slash) + canonical path and query. */
export function digitalLinkUri(origin: string, id: Pick<Gs1CanonicalIdentifier, 'pathAndQuery'>): string {
  return origin.replace(/\/+$/, '') + id.pathAndQuery;
}
