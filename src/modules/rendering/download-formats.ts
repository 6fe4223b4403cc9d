/**
 * The image formats a download answers in (`GET /v1/qr-codes/{id}/download`, the images of a batch ZIP): the one list
 * the query validation, the renderers' callers and the OpenAPI document read, so a new format is one entry here.
 * `sized`: whether `size` (pixels) applies; a vector format ignores it.
 */
export const DOWNLOAD_FORMATS = {
  svg: { contentType: 'image/svg+xml', sized: false },
  png: { contentType: 'image/png', sized: true },
} as const;

export type DownloadFormat = keyof typeof DOWNLOAD_FORMATS;
export const DOWNLOAD_FORMAT_NAMES = Object.keys(DOWNLOAD_FORMATS) as DownloadFormat[];

/** `size` when the query names none, and the width of every SVG (a vector image scales; the stored image has it too). */
export const DEFAULT_DOWNLOAD_SIZE = 1000;
export const MIN_DOWNLOAD_SIZE = 100;
export const MAX_DOWNLOAD_SIZE = 4000;

export const ZIP_CONTENT_TYPE = 'application/zip';

/** OpenAPI `content` of a binary answer in the given media types. */
export function binaryContent(...types: string[]): Record<string, { schema: { type: 'string'; format: 'binary' } }> {
  return Object.fromEntries(types.map((t) => [t, { schema: { type: 'string' as const, format: 'binary' as const } }]));
}

/** Every download format's Content-Type, for the OpenAPI document. */
export const DOWNLOAD_CONTENT_TYPES = DOWNLOAD_FORMAT_NAMES.map((f) => DOWNLOAD_FORMATS[f].contentType);

/** The size a download of `format` is drawn at: `size` (a string from the query, validated) for raster formats, the
 * default for vector ones, which ignore it whatever it holds. Returns an error message instead when `size` is bad. */
export function downloadSize(format: DownloadFormat, size: string | undefined): number | { error: string } {
  if (!DOWNLOAD_FORMATS[format].sized || size === undefined) return DEFAULT_DOWNLOAD_SIZE;
  const n = /^\d{1,5}$/.test(size) ? Number(size) : NaN;
  if (!Number.isInteger(n) || n < MIN_DOWNLOAD_SIZE || n > MAX_DOWNLOAD_SIZE) return { error: `size must be an integer from ${MIN_DOWNLOAD_SIZE} to ${MAX_DOWNLOAD_SIZE}` };
  return n;
}
