/** What an upload may be (docs/files.md): the type file-type sniffs from the bytes, mapped to the Content-Type the
 * file is stored and served with. Anything else (HTML, SVG, scripts, archives, …) is refused. */
export type FileKind = 'document' | 'image' | 'audio' | 'video';

export interface AllowedType {
  contentType: string;
  kind: FileKind;
}

const t = (contentType: string, kind: FileKind): AllowedType => ({ contentType, kind });

/** By the extension file-type reports (its MIME strings vary: `audio/x-m4a`, `audio/ogg; codecs=opus`). */
const BY_EXTENSION: Readonly<Record<string, AllowedType>> = {
  pdf: t('application/pdf', 'document'),
  png: t('image/png', 'image'),
  jpg: t('image/jpeg', 'image'),
  webp: t('image/webp', 'image'),
  gif: t('image/gif', 'image'),
  mp3: t('audio/mpeg', 'audio'),
  m4a: t('audio/mp4', 'audio'),
  m4b: t('audio/mp4', 'audio'),
  f4a: t('audio/mp4', 'audio'),
  aac: t('audio/aac', 'audio'),
  ogg: t('audio/ogg', 'audio'),
  oga: t('audio/ogg', 'audio'),
  opus: t('audio/ogg', 'audio'),
  spx: t('audio/ogg', 'audio'),
  wav: t('audio/wav', 'audio'),
  mp4: t('video/mp4', 'video'),
  m4v: t('video/mp4', 'video'),
  f4v: t('video/mp4', 'video'),
  webm: t('video/webm', 'video'),
};

export const ALLOWED_TYPES_TEXT = 'PDF, PNG, JPEG, WebP, GIF, MP3, M4A/AAC, OGG, WAV, MP4 or WebM';

/** The stored type of a sniffed extension, or null when such files are not accepted. */
export function allowedType(ext: string | undefined): AllowedType | null {
  return (ext !== undefined && Object.hasOwn(BY_EXTENSION, ext) && BY_EXTENSION[ext]) || null;
}

/** The kind of a stored Content-Type (what the hosted page shows it with). */
export function kindOf(contentType: string): FileKind {
  if (contentType === 'application/pdf') return 'document';
  return contentType.slice(0, contentType.indexOf('/')) as FileKind;
}

/** A client's file name made safe to keep and show: the last path segment, no control characters, at most 255
 * characters; `file` when nothing is left. */
export function cleanFileName(raw: string | undefined): string {
  const base = stripBidi((raw ?? '').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f-\u009f]/g, '')).trim();
  return Array.from(base).slice(0, 255).join('') || 'file';
}

/** Bidirectional controls (LRM, RLM, ALM, LRE…RLO, LRI…PDI): a name holding U+202E shows `invoice<RLO>gnp.hta` as
 * `invoiceath.png`. No file name needs them. */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
export const stripBidi = (name: string): string => name.replace(BIDI_CONTROLS, '');

/** Extensions a served file may keep for its stored type, the usual one first. */
const EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  'application/pdf': ['pdf'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg', 'jpe'],
  'image/webp': ['webp'],
  'image/gif': ['gif'],
  'audio/mpeg': ['mp3'],
  'audio/mp4': ['m4a', 'm4b', 'f4a', 'mp4'],
  'audio/aac': ['aac'],
  'audio/ogg': ['ogg', 'oga', 'opus', 'spx'],
  'audio/wav': ['wav'],
  'video/mp4': ['mp4', 'm4v', 'f4v'],
  'video/webm': ['webm'],
};

/**
 * The name a stored file is offered under (Content-Disposition, the page's `download`): the uploaded base name without
 * bidirectional controls, always ending in an extension of the sniffed type, so what a visitor saves opens as what it
 * is (`invoice.html` stored as a PDF → `invoice.html.pdf`; `photo.JPG` stays; `.pdf` → `file.pdf`).
 */
export function servedFileName(name: string, contentType: string): string {
  const base = stripBidi(name).trim() || 'file';
  const allowed = EXTENSIONS[contentType];
  if (!allowed) return base;
  const dot = base.lastIndexOf('.');
  const ext = dot >= 0 ? base.slice(dot + 1).toLowerCase() : '';
  if (!allowed.includes(ext)) return `${base}.${allowed[0]}`;
  // `.pdf` alone is an extension without a name: offered as `file.pdf`, not as a hidden file.
  return dot === 0 ? `file${base}` : base;
}
