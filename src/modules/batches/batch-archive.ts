import archiver, { Archiver } from 'archiver';

/** A streaming ZIP (archiver 7: CommonJS, so it also loads under Jest; archiver 8 is ESM-only). */
export function createZip(): { archive: Archiver } {
  return { archive: archiver('zip', { zlib: { level: 6 } }) };
}

/** One CSV field: quoted when needed, and a leading = + - @ neutralized so spreadsheets do not run it as a formula. */
export function csvField(value: unknown): string {
  let s = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(values: unknown[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

export function slug(name: string, fallback: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[^\w\s-]/g, '')
      .trim()
      .toLowerCase()
      .replace(/[\s_-]+/g, '-')
      .slice(0, 80) || fallback
  );
}
