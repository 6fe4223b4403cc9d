import type { LogoImage } from './qr-svg';

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Logos already turned into data URIs, by the bytes' identity (the images module hands out one Buffer per stored
 * logo, so a logo used by many codes is encoded once). */
const encoded = new WeakMap<Buffer, LogoImage>();

/** A normalized logo (PNG bytes) as the SVG embeds it. */
export function logoImage(png: Buffer): LogoImage {
  let logo = encoded.get(png);
  if (!logo) {
    const { width, height } = pngSize(png);
    logo = { dataUri: `data:image/png;base64,${png.toString('base64')}`, width, height };
    encoded.set(png, logo);
  }
  return logo;
}
