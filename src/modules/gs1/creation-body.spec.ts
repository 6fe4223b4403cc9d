import { canonicalizeCreationParts, digitalLinkUri, type Gs1CreationParts } from './creation-body';
import { gs1Refusal } from './testing/gs1-refusal';

const refusal = (body: Gs1CreationParts) => gs1Refusal(() => canonicalizeCreationParts(body));
const gtin = (value = '09520123456788') => ({ ai: '01', value });

describe('canonicalizeCreationParts', () => {
  it('builds the canonical path and query, qualifiers in their given order', () => {
    const id = canonicalizeCreationParts({
      primary_key: gtin(),
      qualifiers: [{ ai: '22', value: 'V 1'.replace(' ', '-') }, { ai: '10', value: 'LOT42' }, { ai: '21', value: '7' }],
      attributes: { '17': '260100', '3103': '000500' },
    });
    expect(id.path).toBe('/01/09520123456788/22/V-1/10/LOT42/21/7');
    expect(id.query).toBe('17=260100&3103=000500');
    expect(digitalLinkUri('https://scan.example.com/', id)).toBe('https://scan.example.com/01/09520123456788/22/V-1/10/LOT42/21/7?17=260100&3103=000500');
  });
  it.each([
    ['GTIN-8', '95012346', '00000095012346'],
    ['GTIN-12', '614141000036', '00614141000036'],
    ['GTIN-13', '9520123456788', '09520123456788'],
    ['GTIN-14', '09520123456788', '09520123456788'],
  ])('normalises a %s to 14 digits', (_name, value, expected) => {
    expect(canonicalizeCreationParts({ primary_key: gtin(value) }).path).toBe(`/01/${expected}`);
  });
  it('percent-encodes values outside A-Za-z0-9-._~ in uppercase hex, !\'()* included', () => {
    const id = canonicalizeCreationParts({ primary_key: gtin(), qualifiers: [{ ai: '10', value: "A/B!'()*%" }] });
    expect(id.path).toBe('/01/09520123456788/10/A%2FB%21%27%28%29%2A%25');
    expect(id.qualifiers[0].value).toBe("A/B!'()*%");
  });
  it('accepts the TPX alternative and other primary keys', () => {
    expect(canonicalizeCreationParts({ primary_key: gtin(), qualifiers: [{ ai: '235', value: 'TPX-001' }] }).path).toBe('/01/09520123456788/235/TPX-001');
    expect(canonicalizeCreationParts({ primary_key: { ai: '414', value: '9520123456788' }, qualifiers: [{ ai: '7040', value: '1A2B' }] }).path).toBe('/414/9520123456788/7040/1A2B');
    expect(canonicalizeCreationParts({ primary_key: { ai: '8013', value: '1987654Ad4X4bL5ttr2310c2K' } }).path).toBe('/8013/1987654Ad4X4bL5ttr2310c2K');
  });
  it.each<[string, Gs1CreationParts, string, string]>([
    ['a wrong GTIN check digit', { primary_key: gtin('09520123456789') }, 'GS1_CHECK_DIGIT', 'primary_key.value'],
    ['a wrong GTIN-13 check digit', { primary_key: gtin('9520123456789') }, 'GS1_CHECK_DIGIT', 'primary_key.value'],
    ['a GTIN of 11 digits', { primary_key: gtin('95201234567') }, 'GS1_VALUE_FORMAT', 'primary_key.value'],
    // 15 digits whose first 14 have a wrong check digit: a length error, not a check digit error on a value never sent.
    ['a GTIN of 15 digits', { primary_key: gtin('123456789012345') }, 'GS1_VALUE_FORMAT', 'primary_key.value'],
    ['letters in a GTIN', { primary_key: gtin('0952012345678A') }, 'GS1_VALUE_FORMAT', 'primary_key.value'],
    ['an unknown primary key AI', { primary_key: { ai: '89', value: 'X' } }, 'GS1_UNKNOWN_AI', 'primary_key.ai'],
    ['an AI that is no primary key', { primary_key: { ai: '10', value: 'X' } }, 'GS1_INVALID_PRIMARY_KEY', 'primary_key.ai'],
    ['a wrong GMN check pair', { primary_key: { ai: '8013', value: '1987654Ad4X4bL5ttr2310c2L' } }, 'GS1_CHECK_DIGIT', 'primary_key.value'],
    ['an unknown qualifier AI', { primary_key: gtin(), qualifiers: [{ ai: '10', value: 'A' }, { ai: '89', value: 'B' }] }, 'GS1_UNKNOWN_AI', 'qualifiers[1].ai'],
    ['a qualifier of another key', { primary_key: gtin(), qualifiers: [{ ai: '254', value: 'A' }] }, 'GS1_QUALIFIER_ORDER', 'qualifiers[0].ai'],
    ['serial before lot', { primary_key: gtin(), qualifiers: [{ ai: '21', value: '1' }, { ai: '10', value: 'A' }] }, 'GS1_QUALIFIER_ORDER', 'qualifiers'],
    ['235 mixed with 10', { primary_key: gtin(), qualifiers: [{ ai: '10', value: 'A' }, { ai: '235', value: 'T' }] }, 'GS1_QUALIFIER_ORDER', 'qualifiers'],
    ['a lot longer than 20', { primary_key: gtin(), qualifiers: [{ ai: '10', value: 'A'.repeat(21) }] }, 'GS1_VALUE_FORMAT', 'qualifiers[0].value'],
    ['an empty lot', { primary_key: gtin(), qualifiers: [{ ai: '10', value: '' }] }, 'GS1_VALUE_FORMAT', 'qualifiers[0].value'],
    ['a space in the serial', { primary_key: gtin(), qualifiers: [{ ai: '21', value: 'A B' }] }, 'GS1_VALUE_FORMAT', 'qualifiers[0].value'],
    ['a non-ASCII lot', { primary_key: gtin(), qualifiers: [{ ai: '10', value: 'LÖT' }] }, 'GS1_VALUE_FORMAT', 'qualifiers[0].value'],
    ['a TPX of 29 characters', { primary_key: gtin(), qualifiers: [{ ai: '235', value: 'T'.repeat(29) }] }, 'GS1_VALUE_FORMAT', 'qualifiers[0].value'],
    ['a qualifier as an attribute', { primary_key: gtin(), attributes: { '10': 'A' } }, 'GS1_QUALIFIER_IN_QUERY', 'attributes.10'],
    ['an unknown attribute AI', { primary_key: gtin(), attributes: { '89': 'A' } }, 'GS1_UNKNOWN_AI', 'attributes.89'],
    ['an attribute that is not a data attribute', { primary_key: gtin(), attributes: { '8200': 'x' } }, 'GS1_NOT_DATA_ATTRIBUTE', 'attributes.8200'],
    ['month 13', { primary_key: gtin(), attributes: { '17': '261331' } }, 'GS1_VALUE_FORMAT', 'attributes.17'],
    ['day 32', { primary_key: gtin(), attributes: { '17': '260132' } }, 'GS1_VALUE_FORMAT', 'attributes.17'],
    ['a production date with DD 00 in 7006 (YYMMDD strict)', { primary_key: gtin(), attributes: { '7006': '260100' } }, 'GS1_VALUE_FORMAT', 'attributes.7006'],
    ['a net weight of 5 digits', { primary_key: gtin(), attributes: { '3103': '00050' } }, 'GS1_VALUE_FORMAT', 'attributes.3103'],
    ['two net weights in kg', { primary_key: gtin(), attributes: { '3103': '000500', '3102': '000500' } }, 'GS1_INVALID_AI_COMBINATION', 'attributes.3102'],
    ['an expiry time at 24:00', { primary_key: gtin(), attributes: { '7003': '2601012400' } }, 'GS1_VALUE_FORMAT', 'attributes.7003'],
  ])('refuses %s', (_name, body, code, field) => {
    expect(refusal(body)).toEqual({ gs1Code: code, field });
  });
  it('accepts DD = 00 in expiry dates and typical data attributes', () => {
    const id = canonicalizeCreationParts({ primary_key: gtin(), attributes: { '17': '260200', '422': '276', '7003': '2601012359', '3922': '995' , '30': '5' } });
    expect(id.attributes.map((a) => a.ai)).toEqual(['17', '30', '3922', '422', '7003']);
    expect(id.query).toBe('17=260200&30=5&3922=995&422=276&7003=2601012359');
  });
});
