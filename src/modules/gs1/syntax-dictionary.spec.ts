import { gs1CheckCharacters, gs1CheckDigit, hasValidCheckDigit } from './check-digits';
import { runLinter } from './linters';
import { aiMatchesPattern, dlPrimaryKeys, gs1Dictionary, parseSyntaxDictionary } from './syntax-dictionary';

describe('the shipped GS1 Syntax Dictionary', () => {
  const dict = gs1Dictionary();

  it('parses every entry, expanding ranges', () => {
    expect(dict.size).toBeGreaterThan(400);
    expect(['3100', '3105', '3929', '91', '99'].every((ai) => dict.has(ai))).toBe(true);
    expect(dict.has('3106')).toBe(false);
    expect(dict.has('89')).toBe(false);
  });
  it('reads primary keys with their qualifier sequences', () => {
    expect(dict.get('01')?.dlQualifierSequences).toEqual([['22', '10', '21'], ['235']]);
    expect(dict.get('414')?.dlQualifierSequences).toEqual([['254'], ['7040']]);
    expect(dict.get('8006')?.dlQualifierSequences).toEqual([['22', '10', '21']]);
    expect(dict.get('00')?.dlQualifierSequences).toEqual([]);
    expect(dict.get('10')?.dlQualifierSequences).toBeNull();
    expect(dlPrimaryKeys()).toEqual(['00', '01', '253', '255', '401', '402', '414', '415', '417', '8003', '8004', '8006', '8010', '8013', '8017', '8018']);
  });
  it('reads components, optional parts, linters, flags and pairing rules', () => {
    expect(dict.get('01')).toMatchObject({ title: 'GTIN', dlDataAttribute: true, components: [{ cset: 'N', min: 14, max: 14, optional: false, linters: ['csum', 'gcppos2'] }] });
    expect(dict.get('253')?.components).toEqual([
      { cset: 'N', min: 13, max: 13, optional: false, linters: ['csum', 'gcppos1'] },
      { cset: 'X', min: 1, max: 17, optional: true, linters: [] },
    ]);
    expect(dict.get('21')).toMatchObject({ dlDataAttribute: false, excludes: ['235'], requires: [[['01'], ['03'], ['8006']]] });
    expect(dict.get('7004')?.requires).toEqual([[['01', '10']]]);
    expect(dict.get('8010')?.components[0].cset).toBe('Y');
    expect(dict.get('8030')?.components[0].cset).toBe('Z');
  });
  it('refuses text it does not understand, so a new dictionary release is noticed', () => {
    expect(() => parseSyntaxDictionary('01 *? N14,newlinter dlpkey # GTIN')).toThrow(/unknown linter 'newlinter'/);
    expect(() => parseSyntaxDictionary('01 *? N14 newattr=1 # GTIN')).toThrow(/unknown attribute/);
    expect(() => parseSyntaxDictionary('01 *? # GTIN')).toThrow(/no specification/);
    expect(() => parseSyntaxDictionary('ABC N1')).toThrow(/bad AI/);
  });
  it('matches AI patterns of pairing rules', () => {
    expect(aiMatchesPattern('3103', '310n')).toBe(true);
    expect(aiMatchesPattern('3113', '310n')).toBe(false);
    expect(aiMatchesPattern('3925', '392n')).toBe(true);
    expect(aiMatchesPattern('31', '31nn')).toBe(false);
  });
});

describe('check digits', () => {
  it('computes the GS1 mod-10 check digit', () => {
    expect(gs1CheckDigit('0952012345678')).toBe(8);
    expect(hasValidCheckDigit('09520123456788')).toBe(true);
    expect(hasValidCheckDigit('09520123456789')).toBe(false);
    expect(hasValidCheckDigit('95012346')).toBe(true);
  });
  it('computes the GMN check character pair', () => {
    expect(gs1CheckCharacters('1987654Ad4X4bL5ttr2310c')).toBe('2K');
    expect(gs1CheckCharacters('12345678901234567890123456')).toBeNull();
  });
});

describe('linters', () => {
  const ok = (name: string, value: string) => runLinter(name, value) === null;
  it.each([
    ['yymmd0', '260100', true], ['yymmd0', '261301', false], ['yymmd0', '260230', false], ['yymmd0', '240229', true], ['yymmd0', '000229', true],
    ['yymmdd', '260100', false], ['yymmdd', '260131', true], ['yymmdd', '260431', false],
    ['yyyymmdd', '20240229', true], ['yyyymmdd', '21000229', false], ['yyyymmdd', '20000229', true],
    ['hhmi', '2359', true], ['hhmi', '2400', false], ['hhmi', '1260', false],
    ['hh', '23', true], ['hh', '24', false], ['mi', '59', true], ['ss', '60', false],
    ['iso3166alpha2', 'DE', true], ['iso3166alpha2', 'de', false],
    ['iso5218', '9', true], ['iso5218', '3', false],
    ['pcenc', 'A%20B', true], ['pcenc', 'A%2', false], ['pcenc', 'A%G0', false],
    ['nonzero', '0010', true], ['nonzero', '0000', false], ['zero', '0', true], ['zero', '1', false],
    ['yesno', '1', true], ['yesno', '2', false], ['winding', '9', true], ['winding', '2', false], ['hyphen', '-', true], ['hyphen', '+', false],
    ['pieceoftotal', '0102', true], ['pieceoftotal', '0301', false], ['pieceoftotal', '0002', false],
    ['nozeroprefix', '0', true], ['nozeroprefix', '10', true], ['nozeroprefix', '01', false],
    ['hasnondigit', '12A', true], ['hasnondigit', '123', false],
    ['latitude', '1800000000', true], ['latitude', '1800000001', false], ['longitude', '3600000000', true], ['longitude', '3600000001', false],
    ['posinseqslash', '1/2', true], ['posinseqslash', '3/2', false], ['posinseqslash', '0/2', false],
    ['importeridx', '_', true], ['importeridx', '!', false],
    ['iban', 'GB82WEST12345698765432', true], ['iban', 'GB82WEST12345698765431', false],
    ['gcppos1', '9520ABC', true], ['gcppos1', 'ABC', false], ['gcppos2', '09520', true], ['gcppos2', '0952', false],
    ['mediatype', '01', true], ['mediatype', '00', false],
  ])('%s(%s) → %s', (name, value, expected) => {
    expect(ok(name, value)).toBe(expected);
  });
  it('reports check digit failures with their own code', () => {
    expect(runLinter('csum', '09520123456789')?.code).toBe('GS1_CHECK_DIGIT');
    expect(runLinter('csumalpha', '1987654Ad4X4bL5ttr2310c2L')?.code).toBe('GS1_CHECK_DIGIT');
    expect(runLinter('yymmd0', '261331')?.code).toBe('GS1_VALUE_FORMAT');
  });
});
