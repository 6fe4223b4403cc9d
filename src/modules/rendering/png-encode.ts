import { promisify } from 'node:util';
import { constants, crc32, deflate } from 'node:zlib';

const deflateAsync = promisify(deflate);

/**
 * A one-channel (greyscale) PNG from raw 8-bit pixels, written with Node's zlib instead of libvips. A QR code's pixel
 * rows come in identical bands (a module is tens of pixels tall), which a general encoder finds only by searching
 * the previous row's bytes. Here each row that repeats the one above is written with PNG's `Up` filter (all zeros)
 * and every other row unfiltered, and the stream is deflated with zlib's run-length strategy (`Z_RLE`: no match
 * search, only runs), which a symbol of flat colour and a few anti-aliased edge pixels is made of. At 4,000 px this
 * takes about a quarter of the CPU of libvips' level-6 encode and the file is about a quarter of the size. Deflate
 * runs on libuv's thread pool, off the event loop, as sharp's encoder does.
 *
 * `scratch` is where the filtered rows go: at least (width + 1) × height bytes (the caller reuses it).
 */
export function encodeGreyPng(pixels: Uint8Array, width: number, height: number, scratch: Buffer): Promise<Buffer> {
  return encodeOneBytePng(pixels, width, height, scratch, null);
}

/**
 * An indexed-colour PNG (colour type 3, 8-bit indices) from one byte a pixel and its palette (`plte`: RGB triples, at
 * most 256), written as encodeGreyPng writes grey levels: a design of flat colours compresses like a greyscale one.
 */
export function encodePalettePng(indices: Uint8Array, width: number, height: number, scratch: Buffer, plte: Buffer): Promise<Buffer> {
  if (plte.length === 0 || plte.length % 3 !== 0 || plte.length > 768) throw new Error(`a PNG palette holds 1 to 256 RGB triples, not ${plte.length} bytes`);
  return encodeOneBytePng(indices, width, height, scratch, plte);
}

async function encodeOneBytePng(pixels: Uint8Array, width: number, height: number, scratch: Buffer, plte: Buffer | null): Promise<Buffer> {
  const stride = width + 1;
  const src = Buffer.from(pixels.buffer, pixels.byteOffset, width * height);
  const rows = scratch.subarray(0, stride * height);
  for (let y = 0, s = 0, o = 0; y < height; y++, s += width, o += stride) {
    if (y > 0 && src.compare(src, s - width, s, s, s + width) === 0) {
      rows[o] = 2; // Up: each byte is the difference from the byte above, here zero.
      rows.fill(0, o + 1, o + stride);
    } else {
      rows[o] = 0; // None
      src.copy(rows, o + 1, s, s + width);
    }
  }
  const idat = await deflateAsync(rows, { level: 6, strategy: constants.Z_RLE });
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = plte ? 3 : 0; // colour type: indexed or greyscale
  // compression, filter method and interlace: 0 (deflate, adaptive filter types per row, none)
  const chunks = [PNG_SIGNATURE, chunk('IHDR', header), ...(plte ? [chunk('PLTE', plte)] : []), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))];
  return Buffer.concat(chunks);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
