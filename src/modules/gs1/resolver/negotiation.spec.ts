import type { Gs1Link } from '../resolver-data';
import { acceptsLinkset, parseWeightedHeader, pickByLanguage, pickByMediaType } from './negotiation';

const l = (href: string, hreflang?: string[], type?: string): Gs1Link => ({ linkType: 'https://gs1.org/voc/pip', href, hreflang, type });

describe('content negotiation', () => {
  it('orders header values by q, stably, dropping q=0', () => {
    expect(parseWeightedHeader('en;q=0.5, fr, de;q=0, it;q=0.5')).toEqual([{ value: 'fr', q: 1 }, { value: 'en', q: 0.5 }, { value: 'it', q: 0.5 }]);
    expect(parseWeightedHeader(undefined)).toEqual([]);
  });
  it('picks exact tags before prefixes, and language-neutral links without a match', () => {
    const links = [l('en', ['en']), l('gb', ['en-GB']), l('none')];
    expect(pickByLanguage(links, 'en-gb').links.map((x) => x.href)).toEqual(['gb']);
    expect(pickByLanguage(links, 'en').links.map((x) => x.href)).toEqual(['en']);
    expect(pickByLanguage(links, 'en-US').links.map((x) => x.href)).toEqual(['en']);
    expect(pickByLanguage(links, 'ja')).toEqual({ links: [links[2]], matched: false });
    expect(pickByLanguage(links.slice(0, 2), '*').links).toHaveLength(2);
  });
  it('picks by media type, wildcards included', () => {
    const links = [l('h', undefined, 'text/html'), l('p', undefined, 'application/pdf')];
    expect(pickByMediaType(links, 'application/*').map((x) => x.href)).toEqual(['p']);
    expect(pickByMediaType(links, 'image/png')).toHaveLength(2);
  });
  it('recognises a linkset request in Accept', () => {
    expect(acceptsLinkset('text/html, application/linkset+json;q=0.9')).toBe(true);
    expect(acceptsLinkset('application/json')).toBe(false);
  });
});
