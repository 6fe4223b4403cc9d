import { Gs1Error } from './gs1.error';
import { withCanonicalForm, type Gs1CanonicalIdentifier } from './creation-body';
import { checkIdentifier, type AiValue } from './identifier';
import { decodeDlValue } from './percent-encoding';
import { gs1Dictionary } from './syntax-dictionary';

export interface ParsedDigitalLink {
  /** what came before the primary key, e.g. `/shop` ('' when none) */
  stem: string;
  identifier: Gs1CanonicalIdentifier;
  /** canonical paths of every level, most specific first: `/01/g/10/L/21/S`, `/01/g/10/L`, `/01/g` */
  levels: string[];
  /** the raw `linkType` parameter (decoded), null when absent */
  linkType: string | null;
  /** query parameters that are not AIs (`linkType`, `context`, …), decoded, in order */
  otherParams: [string, string][];
  /** the request's query string as received (no `?`): a redirect passes it on whole */
  rawQuery: string;
}

export interface ParseOptions {
  /** accept GTIN-8/12/13 in `/01/…` and pad them (GS1 deprecated them in URIs; default false) */
  permitZeroSuppressedGtin?: boolean;
}

const NAMES = {
  primaryKey: () => 'path',
  qualifier: () => 'path',
  qualifierPath: 'path',
};

/**
 * Parses and validates a Digital Link request path and query as a resolver receives them
 * (`/01/09506000134352/10/ABC/`, `17=260101&linkType=gs1:pip`). The path is scanned backwards over `/{ai}/{value}`
 * pairs until a primary key is reached, so a stem such as `/shop` is allowed; one trailing slash is tolerated.
 * Throws a Gs1Error (the HTTP layer answers 400) for anything that is not a valid Digital Link.
 */
export function parseDigitalLink(path: string, rawQuery = '', options: ParseOptions = {}): ParsedDigitalLink {
  const segments = path.replace(/\/$/, '').split('/');
  if (segments.shift() !== '') throw new Gs1Error('GS1_INVALID_PATH', 'path', 'The path must start with /');
  const pairs: AiValue[] = [];
  let index = segments.length - 2;
  for (; index >= 0; index -= 2) {
    const [ai, raw] = [segments[index], segments[index + 1]];
    if (!/^\d{2,4}$/.test(ai)) throw new Gs1Error('GS1_INVALID_PATH', 'path', `'${ai}' is not a GS1 Application Identifier`);
    const entry = gs1Dictionary().get(ai);
    if (!entry) throw new Gs1Error('GS1_UNKNOWN_AI', 'path', `'${ai}' is not a GS1 Application Identifier`);
    if (raw === '') throw new Gs1Error('GS1_INVALID_PATH', 'path', `AI ${ai} has an empty value`);
    pairs.unshift({ ai, value: decodeDlValue(raw, 'path', false) });
    if (entry.dlQualifierSequences) break;
  }
  if (index < 0 || !pairs.length) throw new Gs1Error('GS1_INVALID_PATH', 'path', 'No GS1 Digital Link primary key in the path');
  const stemSegments = segments.slice(0, index);
  if (stemSegments.some((s) => s === '')) throw new Gs1Error('GS1_INVALID_PATH', 'path', 'Empty path segment');
  const [primaryKey, ...qualifiers] = pairs;
  if (primaryKey.ai === '01' && /^(\d{8}|\d{12}|\d{13})$/.test(primaryKey.value)) {
    if (!options.permitZeroSuppressedGtin) {
      throw new Gs1Error('GS1_ZERO_SUPPRESSED_GTIN', 'path', 'A GTIN in a Digital Link URI must have 14 digits');
    }
    primaryKey.value = primaryKey.value.padStart(14, '0');
  }
  const { attributes, otherParams } = splitQuery(rawQuery);
  checkIdentifier({ primaryKey, qualifiers, attributes }, { ...NAMES, attribute: (i) => `query.${attributes[i].ai}` });
  const identifier = withCanonicalForm({ primaryKey, qualifiers, attributes });
  const levels = qualifiers.map((_, i) => withCanonicalForm({ primaryKey, qualifiers: qualifiers.slice(0, i + 1), attributes: [] }).path);
  const linkType = otherParams.find(([k]) => k === 'linkType')?.[1] ?? null;
  return {
    stem: stemSegments.length ? `/${stemSegments.join('/')}` : '',
    identifier,
    levels: [...levels.reverse(), withCanonicalForm({ primaryKey, qualifiers: [], attributes: [] }).path],
    linkType,
    otherParams,
    rawQuery,
  };
}

/** Numeric keys are AIs (data attributes); other keys (`linkType`, `context`, …) pass through. */
function splitQuery(rawQuery: string): { attributes: AiValue[]; otherParams: [string, string][] } {
  const attributes: AiValue[] = [];
  const otherParams: [string, string][] = [];
  for (const param of rawQuery.replace(/^\?/, '').split('&')) {
    if (!param) continue;
    const eq = param.indexOf('=');
    const key = decodeDlValue(eq < 0 ? param : param.slice(0, eq), 'query', true);
    const value = decodeDlValue(eq < 0 ? '' : param.slice(eq + 1), `query.${key}`, true);
    if (/^\d+$/.test(key)) attributes.push({ ai: key, value });
    else otherParams.push([key, value]);
  }
  return { attributes, otherParams };
}
