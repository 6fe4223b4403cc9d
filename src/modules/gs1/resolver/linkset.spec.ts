import Ajv from 'ajv';
import linksetSchema from '../data/gs1-linkset-schema.json';
import { buildLinkset, contextObject, levelsOf } from './linkset';
import { buildResolverDescription, GS1_RESOLVER_HEADERS } from './well-known';

const validate = new Ajv({ strict: false }).compile(linksetSchema);
const G = '/01/09506000134352';

describe('GS1 linkset schema (sanity of the test oracle)', () => {
  it('refuses what GS1 refuses: CURIE keys, bad hreflang, members outside the schema, missing anchor', () => {
    const ok = { anchor: `https://e.com${G}`, itemDescription: 'x', 'https://gs1.org/voc/pip': [{ href: 'https://e.com/p', title: 'P' }] };
    expect(validate({ linkset: [ok] })).toBe(true);
    expect(validate({ linkset: [{ ...ok, 'gs1:pip': [{ href: 'https://e.com/p', title: 'P' }] }] })).toBe(false);
    expect(validate({ linkset: [{ ...ok, 'https://gs1.org/voc/pip': [{ href: 'https://e.com/p', title: 'P', hreflang: ['english'] }] }] })).toBe(false);
    expect(validate({ linkset: [{ ...ok, 'https://gs1.org/voc/pip': [{ href: 'https://e.com/p', title: 'P', rel: 'x' }] }] })).toBe(false);
    expect(validate({ linkset: [{ ...ok, 'https://gs1.org/voc/pip': [{ href: 'https://e.com/p' }] }] })).toBe(false);
    expect(validate({ linkset: [{ itemDescription: 'x' }] })).toBe(false);
  });
});

describe('buildLinkset', () => {
  const levels = levelsOf([
    {
      path: G,
      name: null,
      destination: 'https://e.com/d',
      links: [{ linkType: 'https://gs1.org/voc/pip', href: 'https://e.com/p', hreflang: ['en-GB'] }],
      overrides: [{ path: `${G}/10/L1`, href: 'https://e.com/l1' }],
    },
  ]);
  it('orders context objects from the primary key down and validates', () => {
    const linkset = buildLinkset([...levels.values()].reverse(), 'https://scan.example.com');
    expect(linkset.linkset.map((c) => c.anchor)).toEqual([`https://scan.example.com${G}`, `https://scan.example.com${G}/10/L1`]);
    expect(validate(linkset)).toBe(true);
  });
  it('gives the default link a title and nothing else', () => {
    const context = contextObject(levels.get(G)!, 'https://s.example');
    expect(context['https://gs1.org/voc/defaultLink']).toEqual([{ href: 'https://e.com/d', title: 'Default link' }]);
    expect(context['https://gs1.org/voc/pip']).toEqual([{ href: 'https://e.com/p', title: 'Product Information Page', hreflang: ['en-GB'] }]);
  });
});

describe('buildResolverDescription', () => {
  it('carries what the resolver description file requires', () => {
    const doc = buildResolverDescription({ resolverRoot: 'https://scan.example.com/', name: 'Scanlink', contact: { fn: 'Scanlink operations' } });
    expect(doc).toEqual({
      name: 'Scanlink',
      resolverRoot: 'https://scan.example.com',
      supportedPrimaryKeys: ['00', '01', '253', '255', '401', '402', '414', '415', '417', '8003', '8004', '8006', '8010', '8013', '8017', '8018'],
      supportedLinkType: [{ namespace: 'https://gs1.org/voc/', prefix: 'gs1:' }],
      linkTypeDefaultCanBeLinkset: false,
      jsonLdContextLocation: 'https://ref.gs1.org/standards/resolver/linkset-context',
      contact: { fn: 'Scanlink operations' },
    });
  });
  it('comes with CORS and Vary headers for every resolver answer', () => {
    expect(GS1_RESOLVER_HEADERS).toMatchObject({ 'Access-Control-Allow-Origin': '*', Vary: 'Accept, Accept-Language' });
  });
});
