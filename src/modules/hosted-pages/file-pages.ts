import { kindOf, servedFileName, stripBidi } from '../files/file-types';
import type { HostedResponse, ScannedCode } from './hosted-response';
import { esc, page, PAGE_CSP } from './layout';

/** The stored target of a file, audio or video code. */
export interface StoredFileTarget {
  file_id: string;
  title: string | null;
  description: string | null;
  /** the file's snapshot, added by the handler's resolve at creation: every stored code has it */
  file?: { name: string; content_type: string; size: number; sha256: string };
}

/** The page's own CSP plus the file itself, from this host only: an image, a player, or the browser's PDF viewer in
 * an <object> (no script anywhere; the file's own response is sandboxed). */
export const FILE_PAGE_CSP = PAGE_CSP.replace('img-src data:', "img-src 'self' data:") + "; media-src 'self'; object-src 'self'; frame-src 'self'";

const UNITS = ['bytes', 'KB', 'MB', 'GB'];

/** 482133 → "471 KB"; 1048576 → "1 MB". */
export function humanSize(bytes: number): string {
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < UNITS.length - 1) {
    n /= 1024;
    u++;
  }
  return `${u === 0 ? n : n >= 10 ? Math.round(n) : Math.round(n * 10) / 10} ${UNITS[u]}`;
}

/** The hosted page of a file, audio or video code: heading, description, the file shown by the browser itself, and
 * a download button. The file's URL is relative (`/{short_code}/file`), so a custom domain serves both. An `audio` code
 * (`player: 'audio'`) always gets `<audio>`, also for an MP4 or WebM file, whose sound it plays. */
export function filePage(code: ScannedCode<StoredFileTarget>, player?: 'audio'): HostedResponse | null {
  const t = code.target;
  const f = t.file;
  if (!f || typeof f.name !== 'string') return null;
  const src = `/${encodeURIComponent(code.shortCode)}/file`;
  // What the visitor sees and saves: no bidirectional controls, and the extension of the type the bytes really are.
  const fileName = servedFileName(f.name, f.content_type);
  const title = t.title || stripBidi(f.name);
  const label = `${fileName} (${humanSize(f.size)})`;
  let viewer: string;
  let open = '';
  switch (player ?? kindOf(f.content_type)) {
    case 'document':
      // The browser's own viewer; phones without an inline viewer show the fallback link, and "Open" uses the full screen.
      viewer = `<object class="pdf" data="${esc(src)}" type="application/pdf" aria-label="${esc(title)}"><p><a href="${esc(src)}">${esc(label)}</a></p></object>`;
      open = `<li><a class="button" href="${esc(src)}">Open</a></li>\n`;
      break;
    case 'image':
      viewer = `<img class="media" src="${esc(src)}" alt="${esc(title)}">`;
      break;
    case 'audio':
      viewer = `<audio class="media" controls preload="metadata" src="${esc(src)}">${esc(label)}</audio>`;
      break;
    default:
      viewer = `<video class="media" controls playsinline preload="metadata" src="${esc(src)}">${esc(label)}</video>`;
  }
  const body = [
    `<h1>${esc(title)}</h1>`,
    t.description ? `<p class="text">${esc(t.description)}</p>` : '',
    viewer,
    `<p class="muted">${esc(label)}</p>`,
    `<ul class="links">\n${open}<li><a class="button${open ? ' secondary' : ''}" href="${esc(src)}" download="${esc(fileName)}">Download</a></li>\n</ul>`,
  ]
    .filter(Boolean)
    .join('\n');
  return page(200, title, body, { 'content-security-policy': FILE_PAGE_CSP });
}
