import { gs1LinkTypes, linkTypeLabel, linkTypeUri, normalizeLinkType } from './link-types';
import { normalizeLinks, normalizeOverrides } from './resolver-data';
import { gs1Refusal } from './testing/gs1-refusal';

const refusal = gs1Refusal;
const pk = { ai: '01', value: '09520123456788' };

describe('GS1 link types', () => {
  it.each(['gs1:pip', 'https://gs1.org/voc/pip', 'http://gs1.org/voc/pip', 'https://ref.gs1.org/voc/pip', 'https://www.gs1.org/voc/pip'])(
    'normalises %s to the full URI',
    (input) => expect(normalizeLinkType(input, 'links[0].linkType')).toBe('https://gs1.org/voc/pip'),
  );
  it.each(['pip', 'gs1:nosuchlt', 'gs1:', 'https://example.com/voc/pip', 'GS1:pip', 'gs1:PIP'])('refuses %s', (input) => {
    expect(refusal(() => normalizeLinkType(input, 'links[2].linkType'))).toEqual({ gs1Code: 'GS1_INVALID_LINK_TYPE', field: 'links[2].linkType' });
  });
  it('labels link types from the vocabulary', () => {
    expect(linkTypeLabel('https://gs1.org/voc/pip')).toBe('Product Information Page');
    expect(linkTypeLabel('https://gs1.org/voc/defaultLink')).toBe('Default link');
    expect(linkTypeUri('gs1:dpp')).toBe('https://gs1.org/voc/dpp');
  });
  it('ships the vocabulary the brief names', () => {
    const names = gs1LinkTypes().map((t) => t.curie);
    for (const name of ['pip', 'defaultLink', 'defaultLinkMulti', 'certificationInfo', 'allergenInfo', 'nutritionalInfo', 'instructions', 'epil', 'smpc', 'recallStatus', 'sustainabilityInfo', 'traceability', 'epcis', 'dpp', 'handledBy']) {
      expect(names).toContain(`gs1:${name}`);
    }
    expect(gs1LinkTypes().every((t) => t.title.length > 0)).toBe(true);
  });
});

describe('normalizeLinks', () => {
  it('stores full link-type URIs and keeps title and hreflang', () => {
    expect(normalizeLinks([{ linkType: 'gs1:pip', href: 'https://e.com/en', title: 'Product', hreflang: ['en', 'en-GB'] }, { linkType: 'gs1:epil', href: 'https://e.com/l' }])).toEqual([
      { linkType: 'https://gs1.org/voc/pip', href: 'https://e.com/en', title: 'Product', hreflang: ['en', 'en-GB'] },
      { linkType: 'https://gs1.org/voc/epil', href: 'https://e.com/l' },
    ]);
  });
  it('refuses an unknown link type, the default link as a link, and a malformed hreflang', () => {
    expect(refusal(() => normalizeLinks([{ linkType: 'gs1:pip', href: 'h' }, { linkType: 'gs1:nope', href: 'h' }]))).toEqual({ gs1Code: 'GS1_INVALID_LINK_TYPE', field: 'links[1].linkType' });
    expect(refusal(() => normalizeLinks([{ linkType: 'gs1:defaultLink', href: 'h' }]))).toEqual({ gs1Code: 'GS1_INVALID_LINK_TYPE', field: 'links[0].linkType' });
    for (const tag of ['english', 'en_GB', 'es-419', 'zh-Hant', '']) {
      expect(refusal(() => normalizeLinks([{ linkType: 'gs1:pip', href: 'h', hreflang: ['en', tag] }]))).toEqual({ gs1Code: 'GS1_INVALID_HREFLANG', field: 'links[0].hreflang[1]' });
    }
  });
});

describe('normalizeOverrides', () => {
  it('returns the canonical full path of each level', () => {
    expect(normalizeOverrides([{ path: '10/LOT42', href: 'a' }, { path: '10/LOT42/21/7', href: 'b' }, { path: '/21/A%2FB/', href: 'c' }], { primaryKey: pk, qualifiers: [] })).toEqual([
      { path: '/01/09520123456788/10/LOT42', href: 'a' },
      { path: '/01/09520123456788/10/LOT42/21/7', href: 'b' },
      { path: '/01/09520123456788/21/A%2FB', href: 'c' },
    ]);
  });
  it('accepts levels below a code that has qualifiers', () => {
    const code = { primaryKey: pk, qualifiers: [{ ai: '10', value: 'LOT42' }] };
    expect(normalizeOverrides([{ path: '10/LOT42/21/7', href: 'b' }], code)).toEqual([{ path: '/01/09520123456788/10/LOT42/21/7', href: 'b' }]);
  });
  it.each([
    ['10', 'GS1_INVALID_OVERRIDE_PATH'],
    ['', 'GS1_INVALID_OVERRIDE_PATH'],
    ['10//21/7', 'GS1_INVALID_OVERRIDE_PATH'],
    ['21/7/10/LOT', 'GS1_QUALIFIER_ORDER'],
    ['89/X', 'GS1_UNKNOWN_AI'],
    ['10/' + 'L'.repeat(21), 'GS1_VALUE_FORMAT'],
    ['10/A%zz', 'GS1_PERCENT_ENCODING'],
  ])('refuses the path %j', (path, code) => {
    expect(refusal(() => normalizeOverrides([{ path, href: 'h' }], { primaryKey: pk, qualifiers: [] }))).toEqual({ gs1Code: code, field: 'overrides[0].path' });
  });
  it('refuses a level that is not below the code, and duplicates', () => {
    const code = { primaryKey: pk, qualifiers: [{ ai: '10', value: 'LOT42' }] };
    expect(refusal(() => normalizeOverrides([{ path: '10/LOT42', href: 'h' }], code)).gs1Code).toBe('GS1_INVALID_OVERRIDE_PATH');
    expect(refusal(() => normalizeOverrides([{ path: '10/OTHER/21/1', href: 'h' }], code)).gs1Code).toBe('GS1_INVALID_OVERRIDE_PATH');
    expect(refusal(() => normalizeOverrides([{ path: '10/A', href: 'h' }, { path: '10/%41', href: 'i' }], { primaryKey: pk, qualifiers: [] }))).toEqual({ gs1Code: 'GS1_DUPLICATE_OVERRIDE', field: 'overrides[1].path' });
  });
});
