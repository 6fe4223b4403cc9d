import { csvField, csvRow, slug } from './batch-archive';
import { inferTargetType } from './batch-request';

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

  it('infers the target type of an item from its fields', () => {
    expect(inferTargetType({ destination: 'https://x.com' })).toBe('url');
    expect(inferTargetType({ text: 'x' })).toBe('text');
    expect(inferTargetType({ ssid: 'x' })).toBe('wifi');
    expect(inferTargetType({ title: 'x', start: 's', end: 'e' })).toBe('event');
    expect(inferTargetType({ email: 'a@b.co' })).toBe('email');
    expect(inferTargetType({ phone: '+1555' })).toBe('sms');
    expect(inferTargetType({ type: 'vcard' })).toBe('vcard');
    expect(inferTargetType({})).toBeUndefined();
  });
});
