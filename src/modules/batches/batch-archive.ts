import archiver, { Archiver } from 'archiver';
import { fileSlug } from '../../common/http/file-slug';

/** A streaming ZIP (archiver 7: CommonJS, so it also loads under Jest; archiver 8 is ESM-only). Entries are deflated
 * unless appended with `store: true` (PNGs: already compressed). */
export function createZip(): Archiver {
  return archiver('zip', { zlib: { level: 6 } });
}

/** Appends one entry and resolves once the archive has taken it into its output: when the client reads slowly, the
 * output fills and this waits, so the caller draws the next image only when there is room for it (backpressure). */
export function appendAndWait(archive: Archiver, body: Buffer | string, name: string, store: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      archive.off('error', failed);
      archive.off('close', closed);
      resolve();
    };
    const failed = (err: Error) => {
      archive.off('entry', done);
      archive.off('close', closed);
      reject(err);
    };
    const closed = () => failed(new Error('the archive was closed'));
    archive.once('entry', done);
    archive.once('error', failed);
    archive.once('close', closed);
    archive.append(body, { name, store });
  });
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

/** A file-name stem (src/common/http/file-slug.ts). */
export const slug = fileSlug;

/** manifest.csv's columns (a stable contract: scripts read them by position). An image's entry is named
 * `<name-slug>-<id>.<ext>`, so the id finds it. */
export const MANIFEST_HEADER = ['id', 'name', 'short_url', 'status', 'error'];
