import { csvField, csvRow, slug } from './batch-archive';

describe('batch manifest', () => {
  it('quotes CSV fields that need it', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a, "b"')).toBe('"a, ""b"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField(null)).toBe('');
    expect(csvRow(['a', 1, null])).toBe('a,1,\r\n');
  });

  it('neutralizes spreadsheet formulas', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
  });

  it('slugs names for file names', () => {
    expect(slug('Spring Menü 2026!', 'code')).toBe('spring-menu-2026');
    expect(slug('???', 'code')).toBe('code');
  });

});
