import { parseDigitalLink } from './digital-link-parser';
import { gs1Refusal } from './testing/gs1-refusal';

/** Splits `/path?query` (a fragment is never sent to a server) and parses it. */
function parse(uri: string, options = {}) {
  const url = new URL(uri, 'https://example.com');
  return parseDigitalLink(url.pathname, url.search.slice(1), options);
}
const refusal = (uri: string) => gs1Refusal(() => parse(uri));

describe('parseDigitalLink: the research brief vectors', () => {
  it('1: accepts the canonical GS1 example', () => {
    const dl = parse('https://id.gs1.org/01/09520123456788');
    expect(dl.identifier.primaryKey).toEqual({ ai: '01', value: '09520123456788' });
    expect(dl.levels).toEqual(['/01/09520123456788']);
  });
  it('2: accepts lot, serial and an expiry date attribute', () => {
    const dl = parse('/01/09520123456788/10/ABC1/21/12345?17=180426');
    expect(dl.identifier.qualifiers).toEqual([{ ai: '10', value: 'ABC1' }, { ai: '21', value: '12345' }]);
    expect(dl.identifier.attributes).toEqual([{ ai: '17', value: '180426' }]);
    expect(dl.levels).toEqual(['/01/09520123456788/10/ABC1/21/12345', '/01/09520123456788/10/ABC1', '/01/09520123456788']);
  });
  it('3: accepts a stem, decodes %2D and passes linkType through', () => {
    const dl = parse('/shop/01/09520123456788/22/ABC%2D123?linkType=gs1:pip');
    expect(dl.stem).toBe('/shop');
    expect(dl.identifier.qualifiers).toEqual([{ ai: '22', value: 'ABC-123' }]);
    expect(dl.linkType).toBe('gs1:pip');
    expect(dl.otherParams).toEqual([['linkType', 'gs1:pip']]);
    expect(dl.identifier.path).toBe('/01/09520123456788/22/ABC-123');
  });
  it('4: accepts the TPX alternative', () => {
    expect(parse('/01/09520123456788/235/TPX-001').identifier.qualifiers).toEqual([{ ai: '235', value: 'TPX-001' }]);
  });
  it.each([
    ['5: wrong check digit', '/01/09520123456789', 'GS1_CHECK_DIGIT'],
    ['6: serial before lot', '/01/09520123456788/21/12345/10/ABC1', 'GS1_QUALIFIER_ORDER'],
    ['7: 235 mixed with 10', '/01/09520123456788/10/ABC1/235/TPX-001', 'GS1_QUALIFIER_ORDER'],
    ['8: unknown AI 89 in the path', '/01/09520123456788/89/ABC123', 'GS1_UNKNOWN_AI'],
    ['9: a qualifier in the query', '/01/09520123456788?10=ABC123', 'GS1_QUALIFIER_IN_QUERY'],
    ['10: month 13', '/01/09520123456788?17=261331', 'GS1_VALUE_FORMAT'],
    ['11: lot longer than 20', '/01/09520123456788/10/ABCDEFGHIJKLMNOPQRSTU', 'GS1_VALUE_FORMAT'],
    ['12: a space, outside CSET 82', '/01/09520123456788/10/AB%20C', 'GS1_VALUE_FORMAT'],
    ['13: a zero-suppressed GTIN (strict)', 'https://brand.example.com/01/9520123456788', 'GS1_ZERO_SUPPRESSED_GTIN'],
  ])('%s is refused', (_name, uri, code) => {
    expect(refusal(uri).gs1Code).toBe(code);
  });
  it('13: pads a zero-suppressed GTIN when the option allows it', () => {
    expect(parse('/01/9520123456788', { permitZeroSuppressedGtin: true }).identifier.path).toBe('/01/09520123456788');
  });
  it('14: tolerates one trailing slash, as a resolver should', () => {
    expect(parse('/01/09520123456788/').identifier.path).toBe('/01/09520123456788');
    expect(parse('/01/09520123456788/10/ABC1/').levels[0]).toBe('/01/09520123456788/10/ABC1');
  });
});

describe('parseDigitalLink: paths', () => {
  it.each([
    ['/01/09520123456788/foo', 'GS1_INVALID_PATH'],
    ['/01/09520123456788//', 'GS1_INVALID_PATH'],
    ['/10/ABC1', 'GS1_INVALID_PATH'],
    ['/', 'GS1_INVALID_PATH'],
    ['/01/09520123456788/10/', 'GS1_INVALID_PATH'],
    ['/01/09520123456788/10/%E0%A4%A', 'GS1_PERCENT_ENCODING'],
    ['/01/09520123456788/10/AB%00', 'GS1_PERCENT_ENCODING'],
    ['/01/09520123456788/10/A%zz', 'GS1_PERCENT_ENCODING'],
    ['/01/09520123456788/254/X', 'GS1_QUALIFIER_ORDER'],
    ['/01/09520123456788/10/A/10/B', 'GS1_QUALIFIER_ORDER'],
  ])('refuses %s', (uri, code) => {
    expect(refusal(uri)).toEqual({ gs1Code: code, field: 'path' });
  });
  it('keeps + literal in the path and re-encodes values canonically', () => {
    const dl = parse("/01/09520123456788/10/A+B%2fC'");
    expect(dl.identifier.qualifiers[0].value).toBe("A+B/C'");
    expect(dl.identifier.path).toBe('/01/09520123456788/10/A%2BB%2FC%27');
  });
  it('accepts other primary keys with their own qualifiers', () => {
    expect(parse('/414/9520123456788/254/EXT1').levels).toEqual(['/414/9520123456788/254/EXT1', '/414/9520123456788']);
    expect(parse('/00/095201234567891235').identifier.primaryKey.ai).toBe('00');
    expect(parse('/8004/9520ABC-42').identifier.primaryKey.value).toBe('9520ABC-42');
    expect(parse('/8006/095201234567880102/22/V1/10/L1').identifier.qualifiers).toHaveLength(2);
    expect(parse('/8010/9520ABC/8011/42').identifier.qualifiers).toEqual([{ ai: '8011', value: '42' }]);
    expect(parse('/8017/095201234567891235/8019/7').levels).toHaveLength(2);
  });
  it('refuses a qualifier on a key that takes none', () => {
    expect(refusal('/00/095201234567891235/10/A').gs1Code).toBe('GS1_QUALIFIER_ORDER');
  });
  it('refuses a wrong SSCC check digit and a CPID outside CSET 39', () => {
    expect(refusal('/00/095201234567891234').gs1Code).toBe('GS1_CHECK_DIGIT');
    expect(refusal('/8010/9520abc').gs1Code).toBe('GS1_VALUE_FORMAT');
  });
});

describe('parseDigitalLink: query', () => {
  it('keeps the raw query for pass-through and separates AIs from other parameters', () => {
    const dl = parse('/01/09520123456788?17=260100&linkType=gs1%3Apip&context=us&3103=000500');
    expect(dl.rawQuery).toBe('17=260100&linkType=gs1%3Apip&context=us&3103=000500');
    expect(dl.identifier.attributes).toEqual([{ ai: '17', value: '260100' }, { ai: '3103', value: '000500' }]);
    expect(dl.otherParams).toEqual([['linkType', 'gs1:pip'], ['context', 'us']]);
    expect(dl.identifier.query).toBe('17=260100&3103=000500');
  });
  it('reads + as a space in the query', () => {
    expect(refusal('/01/09520123456788?7002=A+B')).toEqual({ gs1Code: 'GS1_VALUE_FORMAT', field: 'query.7002' });
  });
  it.each([
    ['/01/09520123456788?99999=1', 'GS1_UNKNOWN_AI', 'query.99999'],
    ['/01/09520123456788?17=260101&17=260102', 'GS1_DUPLICATE_AI', 'query.17'],
    ['/01/09520123456788?01=09520123456788', 'GS1_DUPLICATE_AI', 'query.01'],
    ['/01/09520123456788?21=7', 'GS1_QUALIFIER_IN_QUERY', 'query.21'],
    ['/01/09520123456788?8200=https', 'GS1_NOT_DATA_ATTRIBUTE', 'query.8200'],
    ['/01/09520123456788?17=260230', 'GS1_VALUE_FORMAT', 'query.17'],
    ['/01/09520123456788?3103=12345', 'GS1_VALUE_FORMAT', 'query.3103'],
    ['/01/09520123456788?3103=000500&3102=000500', 'GS1_INVALID_AI_COMBINATION', 'query.3103'],
    ['/414/9520123456788?17=260101', 'GS1_INVALID_AI_COMBINATION', 'query.17'],
  ])('refuses %s', (uri, code, field) => {
    expect(refusal(uri)).toEqual({ gs1Code: code, field });
  });
  it('accepts DD = 00 and a leap day', () => {
    expect(parse('/01/09520123456788?17=260200&15=240229').identifier.attributes).toHaveLength(2);
    expect(refusal('/01/09520123456788?15=250229').gs1Code).toBe('GS1_VALUE_FORMAT');
  });
});
