import Ajv from 'ajv';
import linksetSchema from '../data/gs1-linkset-schema.json';
import { parseDigitalLink } from '../digital-link-parser';
import type { Gs1Link } from '../resolver-data';
import { decideGs1Answer, withQuery, type Gs1Answer, type Gs1ResolverRequest } from './decide';
import type { Gs1ResolverRecord, Linkset } from './linkset';

const validateLinkset = new Ajv({ strict: false }).compile(linksetSchema);
const G = '/01/09506000134352';
const voc = (name: string) => `https://gs1.org/voc/${name}`;
const link = (name: string, href: string, extra: Partial<Gs1Link> = {}): Gs1Link => ({ linkType: voc(name), href, ...extra });
const code: Gs1ResolverRecord = {
  path: G,
  name: 'Crew neck T-shirt',
  destination: 'https://brand.example/product',
  links: [
    link('pip', 'https://brand.example/en/pip', { hreflang: ['en'], title: 'Product' }),
    link('pip', 'https://brand.example/fr/pip', { hreflang: ['fr'] }),
    link('epil', 'https://brand.example/leaflet.pdf'),
    link('certificationInfo', 'https://cert.example/1'),
    link('certificationInfo', 'https://cert.example/2'),
  ],
  overrides: [
    { path: `${G}/10/LOT42`, href: 'https://brand.example/lot42' },
    { path: `${G}/10/LOT42/21/7`, href: 'https://brand.example/lot42/7?x=1#top' },
  ],
};

function ask(uri: string, extra: Partial<Gs1ResolverRequest> = {}, records = [code]): Gs1Answer {
  const url = new URL(uri, 'https://scan.example.com');
  return decideGs1Answer(records, { method: 'GET', dl: parseDigitalLink(url.pathname, url.search.slice(1)), origin: 'https://scan.example.com', ...extra });
}
const location = (a: Gs1Answer) => (a.status === 307 ? a.location : `status ${a.status}`);
const body = (a: Gs1Answer): Linkset => {
  if (a.status !== 200 && a.status !== 300) throw new Error(`status ${a.status}`);
  expect(validateLinkset(a.body)).toBe(true);
  return a.body;
};

describe('decideGs1Answer: redirects', () => {
  it('redirects 307 to the default link with Link, Vary and CORS headers', () => {
    const a = ask(G);
    expect(a).toMatchObject({ status: 307, location: 'https://brand.example/product', countable: true });
    expect(a.headers).toMatchObject({
      Link: `<https://scan.example.com${G}?linkType=linkset>; rel="linkset"; type="application/linkset+json"`,
      Vary: 'Accept, Accept-Language',
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
    });
  });
  it('passes the whole query string on, with & when the target has a query, before a fragment', () => {
    expect(location(ask(`${G}?foo=bar&17=260101`))).toBe('https://brand.example/product?foo=bar&17=260101');
    expect(location(ask(`${G}/10/LOT42/21/7?foo=bar`))).toBe('https://brand.example/lot42/7?x=1&foo=bar#top');
    expect(location(ask(`${G}?linkType=gs1:epil&foo=bar`))).toBe('https://brand.example/leaflet.pdf?linkType=gs1:epil&foo=bar');
    expect(withQuery('https://e.com/?', 'a=1')).toBe('https://e.com/?a=1');
  });
  it('answers the most specific override, walking up unknown lower levels', () => {
    expect(location(ask(`${G}/10/LOT42`))).toBe('https://brand.example/lot42');
    expect(location(ask(`${G}/10/LOT42/21/7`))).toBe('https://brand.example/lot42/7?x=1#top');
    expect(location(ask(`${G}/10/LOT42/21/UNKNOWN`))).toBe('https://brand.example/lot42');
    expect(location(ask(`${G}/10/UNKNOWN`))).toBe('https://brand.example/product');
    expect(location(ask(`${G}/22/V1/10/LOT42`))).toBe('https://brand.example/product');
  });
  it('answers the same with a trailing slash', () => {
    expect(ask(`${G}/10/LOT42/`)).toEqual(ask(`${G}/10/LOT42`));
  });
  it('redirects to a requested link type, from the nearest level that has one', () => {
    expect(location(ask(`${G}?linkType=gs1:epil`))).toBe('https://brand.example/leaflet.pdf?linkType=gs1:epil');
    expect(location(ask(`${G}/10/LOT42?linkType=${encodeURIComponent('https://gs1.org/voc/epil')}`))).toMatch(/^https:\/\/brand\.example\/leaflet\.pdf\?/);
    expect(location(ask(`${G}/10/LOT42?linkType=gs1:defaultLink`))).toMatch(/^https:\/\/brand\.example\/lot42\?/);
  });
  it('picks among links of one type by Accept-Language', () => {
    expect(location(ask(`${G}?linkType=gs1:pip`, { acceptLanguage: 'fr-CH, fr;q=0.9, en;q=0.8' }))).toMatch(/\/fr\/pip\?/);
    expect(location(ask(`${G}?linkType=gs1:pip`, { acceptLanguage: 'de, en-GB;q=0.5' }))).toMatch(/\/en\/pip\?/);
  });
  it('picks by Accept media type when languages do not decide', () => {
    const typed = { ...code, links: [link('pip', 'https://e.com/p.html', { type: 'text/html' }), link('pip', 'https://e.com/p.pdf', { type: 'application/pdf' })] };
    expect(location(ask(`${G}?linkType=gs1:pip`, { accept: 'application/pdf' }, [typed]))).toMatch(/p\.pdf/);
    expect(ask(`${G}?linkType=gs1:pip`, { accept: '*/*' }, [typed]).status).toBe(300);
  });
  it('follows a gs1:defaultLinkMulti link that matches the language, else the default link', () => {
    const multi = { ...code, links: [link('defaultLinkMulti', 'https://e.com/de', { hreflang: ['de'] }), link('defaultLinkMulti', 'https://e.com/es', { hreflang: ['es'] })] };
    expect(location(ask(G, { acceptLanguage: 'de-AT' }, [multi]))).toBe('https://e.com/de');
    expect(location(ask(G, { acceptLanguage: 'it' }, [multi]))).toBe('https://brand.example/product');
  });
  it('counts only GET redirects; HEAD is answered like GET', () => {
    expect(ask(G, { method: 'HEAD' })).toMatchObject({ status: 307, countable: false, location: 'https://brand.example/product' });
  });
});

describe('decideGs1Answer: linksets', () => {
  it('answers ?linkType=linkset with every level up to the primary key, valid against GS1\'s schema', () => {
    const a = ask(`${G}/10/LOT42/21/7?linkType=linkset`);
    expect(a.status).toBe(200);
    expect(a.headers['Content-Type']).toBe('application/linkset+json');
    expect(a.headers.Link).toContain('<https://ref.gs1.org/standards/resolver/linkset-context>; rel="http://www.w3.org/ns/json-ld#context"; type="application/ld+json"');
    const linkset = body(a).linkset;
    expect(linkset.map((c) => c.anchor)).toEqual([`https://scan.example.com${G}`, `https://scan.example.com${G}/10/LOT42`, `https://scan.example.com${G}/10/LOT42/21/7`]);
    expect(linkset.every((c) => c.itemDescription === 'Crew neck T-shirt')).toBe(true);
    expect(linkset[0]).toEqual({
      anchor: `https://scan.example.com${G}`,
      itemDescription: 'Crew neck T-shirt',
      [voc('defaultLink')]: [{ href: 'https://brand.example/product', title: 'Default link' }],
      [voc('pip')]: [
        { href: 'https://brand.example/en/pip', title: 'Product', hreflang: ['en'] },
        { href: 'https://brand.example/fr/pip', title: 'Product Information Page', hreflang: ['fr'] },
      ],
      [voc('epil')]: [{ href: 'https://brand.example/leaflet.pdf', title: 'Electronic Patient Information Leaflet' }],
      [voc('certificationInfo')]: [
        { href: 'https://cert.example/1', title: 'Certification Information' },
        { href: 'https://cert.example/2', title: 'Certification Information' },
      ],
    });
    expect(linkset[1]).toEqual({ anchor: `https://scan.example.com${G}/10/LOT42`, itemDescription: 'Crew neck T-shirt', [voc('defaultLink')]: [{ href: 'https://brand.example/lot42', title: 'Default link' }] });
  });
  it('treats ?linkType=all and Accept: application/linkset+json as linkset requests', () => {
    const expected = ask(`${G}?linkType=linkset`);
    expect(ask(`${G}?linkType=all`)).toEqual(expected);
    expect(body(ask(G, { accept: 'application/linkset+json' }))).toEqual(body(expected));
    expect(ask(G, { accept: 'application/linkset+json;q=0' }).status).toBe(307);
  });
  it('describes an unnamed code by its Digital Link URI and keeps a stem in anchors', () => {
    const linkset = body(ask(`/shop${G}?linkType=linkset`, {}, [{ ...code, name: null }])).linkset;
    expect(linkset[0].anchor).toBe(`https://scan.example.com/shop${G}`);
    expect(linkset[0].itemDescription).toBe(`https://scan.example.com/shop${G}`);
  });
  it('answers 300 with the candidates as a linkset when links cannot be told apart', () => {
    const a = ask(`${G}?linkType=gs1:certificationInfo`);
    expect(a.status).toBe(300);
    expect(body(a).linkset).toEqual([
      {
        anchor: `https://scan.example.com${G}`,
        itemDescription: 'Crew neck T-shirt',
        [voc('certificationInfo')]: [
          { href: 'https://cert.example/1', title: 'Certification Information' },
          { href: 'https://cert.example/2', title: 'Certification Information' },
        ],
      },
    ]);
    expect(ask(`${G}?linkType=gs1:pip`, { acceptLanguage: 'de' }).status).toBe(300);
  });
  it('lists the levels of several codes: a code\'s own level wins over an ancestor\'s override', () => {
    const lot = { path: `${G}/10/LOT42`, name: 'Lot 42', destination: 'https://lot.example/42', links: [link('recallStatus', 'https://lot.example/recall')], overrides: [] };
    expect(location(ask(`${G}/10/LOT42`, {}, [code, lot]))).toBe('https://lot.example/42');
    expect(location(ask(`${G}/10/LOT42?linkType=gs1:epil`, {}, [code, lot]))).toMatch(/leaflet/);
    const linkset = body(ask(`${G}/10/LOT42?linkType=linkset`, {}, [lot, code])).linkset;
    expect(linkset.map((c) => c.itemDescription)).toEqual(['Crew neck T-shirt', 'Lot 42']);
  });
});

describe('decideGs1Answer: not found and OPTIONS', () => {
  it('answers 404 for an unknown link type and for a type without a link', () => {
    expect(ask(`${G}?linkType=gs1:nosuchlt`)).toMatchObject({ status: 404, reason: 'unknown_link_type' });
    expect(ask(`${G}?linkType=gs1:recallStatus`)).toMatchObject({ status: 404, reason: 'no_link_of_type' });
    expect(ask(`${G}?linkType=gs1:recallStatus`).headers.Vary).toBe('Accept, Accept-Language');
  });
  it('answers 404 when no record holds a level of the request', () => {
    expect(ask('/01/09520123456788', {}, [code])).toMatchObject({ status: 404, reason: 'unknown_identifier' });
    expect(ask(G, {}, [])).toMatchObject({ status: 404, reason: 'unknown_identifier' });
  });
  it('answers OPTIONS with CORS headers naming GET, HEAD and OPTIONS', () => {
    const a = ask(G, { method: 'OPTIONS' });
    expect(a.status).toBe(204);
    expect(a.headers).toMatchObject({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS', Allow: 'GET, HEAD, OPTIONS' });
  });
});
