import { ApiException } from '../../common/errors/api.exception';
import { PRINT_MM_DEFAULT, PRINT_MM_MAX, PRINT_MM_MIN } from './qr-pdf';
import { CONTENT_TYPES, IMAGE_FORMATS, type ImageFormat, PNG_MAX_SIZE, PNG_MIN_SIZE } from './rendering.service';

/** What a download (or a preview) asks for: the format, the pixel width (PNG, WebP, and an SVG's width and height
 * attributes) and the printed width of a PDF's symbol with its quiet zone in millimetres. */
export interface ImageRequest {
  format: ImageFormat;
  size: number;
  printMm: number;
}

export const DEFAULT_SIZE = 1000;

/**
 * `?format&size&print_mm` → an ImageRequest; 400 naming the parameter for a bad value. `size` (100–4000) is checked for
 * every format but PDF, whose dimensions come from `print_mm` (a number from 10 to 1,000 when given). A batch archive
 * passes `svgSize: 'ignored'`: there, as its API says, SVGs ignore `size` whatever it holds.
 */
export function parseImageRequest(
  query: { format?: string; size?: string; print_mm?: string },
  formats: readonly ImageFormat[] = IMAGE_FORMATS,
  opts: { svgSize?: 'checked' | 'ignored' } = {},
): ImageRequest {
  const format = (query.format ?? 'svg') as ImageFormat;
  if (!formats.includes(format)) throw ApiException.invalid('format', `format must be one of ${formats.join(', ')}`);
  let printMm = PRINT_MM_DEFAULT;
  if (query.print_mm !== undefined) {
    printMm = /^\d+(\.\d+)?$/.test(query.print_mm) ? Number(query.print_mm) : NaN;
    if (!(printMm >= PRINT_MM_MIN && printMm <= PRINT_MM_MAX)) {
      throw ApiException.invalid('print_mm', `print_mm must be a number from ${PRINT_MM_MIN} to ${PRINT_MM_MAX} (millimetres)`);
    }
  }
  let size = DEFAULT_SIZE;
  if (format === 'png' || format === 'webp' || (format === 'svg' && opts.svgSize !== 'ignored')) {
    // Decimal digits only: Number() would also read `0x100`, `1e3`, ` 500` and `1000.0`.
    size = query.size === undefined ? DEFAULT_SIZE : /^\d{1,5}$/.test(query.size) ? Number(query.size) : NaN;
    if (!Number.isInteger(size) || size < PNG_MIN_SIZE || size > PNG_MAX_SIZE) {
      throw ApiException.invalid('size', `size must be an integer from ${PNG_MIN_SIZE} to ${PNG_MAX_SIZE}`);
    }
  }
  return { format, size, printMm };
}

export function contentTypeOf(format: ImageFormat): string {
  return CONTENT_TYPES[format];
}
