import { CONTENT_TYPES, IMAGE_FORMATS } from './rendering.service';

/**
 * Media types of downloads for the OpenAPI document (`GET /v1/qr-codes/{id}/download`, the batch ZIP), derived from
 * the renderers' one list of formats (rendering.service.ts), so a new format shows up in the document by itself.
 */
export const ZIP_CONTENT_TYPE = 'application/zip';

/** OpenAPI `content` of a binary answer in the given media types. */
export function binaryContent(...types: string[]): Record<string, { schema: { type: 'string'; format: 'binary' } }> {
  return Object.fromEntries(types.map((t) => [t, { schema: { type: 'string' as const, format: 'binary' as const } }]));
}

/** Every download format's Content-Type. */
export const DOWNLOAD_CONTENT_TYPES = IMAGE_FORMATS.map((f) => CONTENT_TYPES[f]);
