import { fileSlug } from './file-slug';

describe('fileSlug', () => {
  it('keeps letters, digits and single hyphens, drops accents and never ends in a hyphen', () => {
    expect(fileSlug('Table 1, Window', 'x')).toBe('table-1-window');
    expect(fileSlug('Crème brûlée_menu -- 2026', 'x')).toBe('creme-brulee-menu-2026');
    expect(fileSlug(' - leading and trailing - ', 'x')).toBe('leading-and-trailing');
    const long = fileSlug(`${'Long '.repeat(50)}Long`, 'x');
    expect(long.length).toBeLessThanOrEqual(80);
    expect(long).toMatch(/^long(-long)*$/);
    expect(fileSlug('!!!', 'qr_abc')).toBe('qr_abc');
  });
});
