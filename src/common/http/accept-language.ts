import Negotiator from 'negotiator';

const TAG = /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/;

/**
 * The visitor's preferred language from an Accept-Language header, lower case (`en;q=0.1, fr-CA;q=0.9` → `fr-ca`):
 * the range with the highest quality (the first listed among equals, `q=0` never), by `negotiator` (Express's
 * content negotiation). Null when there is none, when the preferred range is `*`, or when no range is a language tag.
 */
export function preferredLanguage(acceptLanguage: string | undefined): string | null {
  if (!acceptLanguage) return null;
  for (const range of new Negotiator({ headers: { 'accept-language': acceptLanguage } }).languages()) {
    if (range === '*') return null;
    const tag = range.toLowerCase();
    if (TAG.test(tag)) return tag;
  }
  return null;
}
