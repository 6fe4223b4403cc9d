/**
 * Why a GS1 identifier, qualifier, attribute, link type or override path was refused. The HTTP layer turns a
 * `Gs1Error` into 400 `gs1_invalid` with `gs1_code` and `field` (see docs/gs1.md).
 */
export const GS1_CODES = [
  'GS1_UNKNOWN_AI', // the AI is not in the GS1 Syntax Dictionary
  'GS1_INVALID_PRIMARY_KEY', // a known AI that is not a Digital Link primary key
  'GS1_CHECK_DIGIT', // a check digit or check-character pair is wrong
  'GS1_VALUE_FORMAT', // length, character set, date, or another content rule of the AI
  'GS1_QUALIFIER_ORDER', // qualifiers outside the key's allowed sequence, out of order, mixed or repeated
  'GS1_QUALIFIER_IN_QUERY', // a key qualifier sent as a data attribute
  'GS1_NOT_DATA_ATTRIBUTE', // an AI that the dictionary does not permit as a Digital Link data attribute
  'GS1_DUPLICATE_AI', // the same AI twice in one Digital Link
  'GS1_INVALID_AI_COMBINATION', // the dictionary's `ex=` (excluded) or `req=` (required) pairing rules
  'GS1_ZERO_SUPPRESSED_GTIN', // a GTIN-8/12/13 in a Digital Link URI where 14 digits are required
  'GS1_INVALID_PATH', // a Digital Link path that is not `/{ai}/{value}` pairs, or an empty value
  'GS1_PERCENT_ENCODING', // a malformed percent-escape, or an encoded NUL
  'GS1_INVALID_LINK_TYPE', // not a GS1 Web Vocabulary link type (or the default link given as a link)
  'GS1_INVALID_HREFLANG', // a hreflang that is not `xx` or `xx-xx`
  'GS1_INVALID_OVERRIDE_PATH', // an override path that does not name a level below the code's identifier
  'GS1_DUPLICATE_OVERRIDE', // two overrides for the same path
] as const;
export type Gs1Code = (typeof GS1_CODES)[number];

export class Gs1Error extends Error {
  override readonly name = 'Gs1Error';
  constructor(
    readonly gs1Code: Gs1Code,
    /** The request field it concerns: `primary_key.value`, `qualifiers[1].value`, `attributes.17`, `path`, `query.17`. */
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}
