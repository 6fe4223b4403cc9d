import sharp from 'sharp';
import type { Agent } from 'undici';
import { ApiException } from '../../common/errors/api.exception';
import { checkUrlTarget, ResponseTooLargeError, safeFetch, SsrfBlockedError } from '../../common/http/safe-fetch';

/** Logo intake: fetch once (SSRF-safe), sniff the bytes, normalize to a PNG of at most 512 px. */

export const LOGO_MAX_BYTES = 1024 * 1024;
export const LOGO_TIMEOUT_MS = 5000;
export const LOGO_MAX_REDIRECTS = 3;
/** Stored logos are resized to fit this square: plenty for a logo that covers ≤ 30 % of a 4000 px code. */
export const LOGO_MAX_PX = 512;

export type LogoType = 'png' | 'jpeg' | 'webp' | 'svg';

/** The type from the bytes themselves (the Content-Type header is not trusted). */
export function sniffImageType(bytes: Buffer): LogoType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  const head = bytes.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE\s+svg[^>[]*(\[[\s\S]*?\])?\s*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(head)) {
    return 'svg';
  }
  return null;
}

const FIELD = 'design.logo.url';
const refuse = (message: string) => ApiException.invalid(FIELD, message);

/** Bytes of a logo → a PNG no larger than LOGO_MAX_PX. SVG is rasterized here (never embedded as SVG), so no script or
 * external reference in it can reach a browser that opens the stored image. */
export async function normalizeLogo(bytes: Buffer): Promise<Buffer> {
  const type = sniffImageType(bytes);
  if (!type) throw refuse('The logo is not a PNG, JPEG, WebP or SVG image');
  try {
    if (type === 'svg') {
      // Entity declarations are refused outright (entity-expansion bombs, external entities).
      if (/<!ENTITY/i.test(bytes.toString('utf8'))) throw refuse('SVG logos with entity declarations are not accepted');
      // Reading the declared size rasterizes nothing, so the pixel limit does not apply to it (a 20000 × 20000 SVG is a
      // valid logo); the rasterization below keeps its own limit.
      const meta = await sharp(bytes, { density: 72, limitInputPixels: false }).metadata();
      const longest = Math.max(meta.width ?? 0, meta.height ?? 0) || 100;
      const shortest = Math.min(meta.width || longest, meta.height || longest);
      // Rasterize at a density that lands near LOGO_MAX_PX on the longest side, and leaves the shortest at least 1 px.
      const density = Math.min(Math.max((72 * LOGO_MAX_PX) / longest, 72 / shortest, 1), 5000);
      return await sharp(bytes, { density, limitInputPixels: 40_000_000 })
        .resize(LOGO_MAX_PX, LOGO_MAX_PX, { fit: 'inside', withoutEnlargement: false })
        .png()
        .toBuffer();
    }
    return await sharp(bytes, { limitInputPixels: 40_000_000 })
      .rotate()
      .resize(LOGO_MAX_PX, LOGO_MAX_PX, { fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer();
  } catch (err) {
    if (err instanceof ApiException) throw err;
    throw refuse(`The logo could not be read as a ${type.toUpperCase()} image`);
  }
}

/** The bytes of a `data:` URL logo (decoded as the Fetch standard says, base64 or percent-encoded); at most 1 MB. The
 * media type it declares is not trusted: normalizeLogo sniffs the bytes as for a fetched logo. */
export async function decodeDataLogo(url: string): Promise<Buffer> {
  let bytes: Buffer;
  try {
    const res = await fetch(url);
    bytes = Buffer.from(await res.arrayBuffer());
  } catch {
    throw refuse('The logo data: URL could not be decoded');
  }
  if (bytes.length > LOGO_MAX_BYTES) throw refuse('The logo is larger than 1 MB');
  if (bytes.length === 0) throw refuse('The logo data: URL is empty');
  return bytes;
}

/** Fetches the logo's bytes; every failure is a 400 on `design.logo.url` with the reason. */
export async function fetchLogo(agent: Agent, rawUrl: string, allowHosts: string[]): Promise<Buffer> {
  try {
    checkUrlTarget(rawUrl, { allowHosts });
  } catch (err) {
    throw refuse(`The logo URL is not allowed: ${(err as Error).message}`);
  }
  let res;
  try {
    res = await safeFetch(agent, rawUrl, {
      timeoutMs: LOGO_TIMEOUT_MS,
      maxBytes: LOGO_MAX_BYTES,
      onOversize: 'error',
      maxRedirects: LOGO_MAX_REDIRECTS,
      headers: { accept: 'image/png,image/jpeg,image/webp,image/svg+xml;q=0.9,*/*;q=0.1', 'user-agent': 'Scanlink-Logo-Fetcher/1.0' },
    });
  } catch (err) {
    if (err instanceof SsrfBlockedError) throw refuse(`The logo URL is not allowed: ${err.message}`);
    if (err instanceof ResponseTooLargeError) throw refuse('The logo is larger than 1 MB');
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'AbortError' || e.name === 'TimeoutError' || /timed out/.test(String(e.message ?? ''))) {
      throw refuse(`The logo could not be fetched within ${LOGO_TIMEOUT_MS / 1000} seconds`);
    }
    const why = e.cause?.code ?? e.cause?.message ?? e.message ?? 'network error';
    throw refuse(`The logo could not be fetched (${why})`);
  }
  if (res.status >= 300 && res.status < 400) throw refuse(`The logo URL redirects more than ${LOGO_MAX_REDIRECTS} times`);
  if (res.status !== 200) throw refuse(`The logo URL answered HTTP ${res.status}`);
  if (res.body.length === 0) throw refuse('The logo URL returned an empty body');
  return res.body;
}
