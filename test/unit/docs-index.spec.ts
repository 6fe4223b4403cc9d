import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOCS = join(ROOT, 'docs');

/** docs/README.md is the index of the documentation: a page missing from it is a page nobody finds. */
describe('docs/README.md', () => {
  const index = readFileSync(join(DOCS, 'README.md'), 'utf8');
  const rows = index.split('\n').filter((l) => /^\| \[/.test(l));

  it('lists every page of docs/ in one row with a line of description', () => {
    const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md') && f !== 'README.md');
    expect(pages.length).toBeGreaterThan(10);
    for (const page of pages) {
      const row = rows.filter((r) => r.startsWith(`| [${page}](${page}) |`));
      expect({ page, rows: row.length }).toEqual({ page, rows: 1 });
      expect(row[0].split('|')[2].trim().length).toBeGreaterThan(20);
    }
    expect(rows).toHaveLength(pages.length); // and nothing that does not exist
  });

  it('is linked from the README, which says the licence', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('(docs/README.md)');
    expect(readme).toMatch(/open source under the \[MIT licence\]\(LICENSE\)/);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} Scanlink contributors\n/);
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).license).toBe('MIT');
  });
});
