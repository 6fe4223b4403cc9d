import { Gs1Error } from './gs1.error';

/** Percent-encodes everything outside `A-Za-z0-9-._~` in uppercase hex, as GS1 Digital Link generators must. */
export function encodeDlValue(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * Decodes a path segment or query value as received: any valid escape is accepted (`%2d`), a malformed one or an
 * encoded NUL is refused. In the query `+` means a space (form encoding); in the path it is a literal plus.
 */
export function decodeDlValue(raw: string, field: string, inQuery: boolean): string {
  const text = inQuery ? raw.replace(/\+/g, ' ') : raw;
  if (/%(?![0-9A-Fa-f]{2})/.test(text) || /%00/.test(text)) {
    throw new Gs1Error('GS1_PERCENT_ENCODING', field, `Malformed percent-encoding in '${raw}'`);
  }
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Gs1Error('GS1_PERCENT_ENCODING', field, `Malformed percent-encoding in '${raw}'`);
  }
}
