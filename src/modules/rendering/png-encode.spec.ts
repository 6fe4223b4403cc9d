import { inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { encodeGreyPng, encodePalettePng } from './png-encode';

/** Bands of repeated rows (as a QR code's modules make), a row of every grey level, and noise. */
function sample(width: number, height: number): Buffer {
  const px = Buffer.alloc(width * height);
  let seed = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (y < 10) px[i] = ((x >> 2) & 1) * 255; // ten identical rows of stripes
      else if (y === 10) px[i] = x & 255; // every level
      else if (y < 20) px[i] = 0; // nine black rows
      else px[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24; // noise
    }
  }
  return px;
}

/** The IDAT chunks' data, concatenated. */
function idat(png: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let o = 8; o < png.length; ) {
    const length = png.readUInt32BE(o);
    if (png.toString('latin1', o + 4, o + 8) === 'IDAT') parts.push(png.subarray(o + 8, o + 8 + length));
    o += 12 + length;
  }
  return Buffer.concat(parts);
}

describe('encodeGreyPng', () => {
  it('writes a one-channel 8-bit PNG that decodes to exactly the pixels it was given', async () => {
    const width = 300;
    const height = 40;
    const px = sample(width, height);
    const png = await encodeGreyPng(px, width, height, Buffer.alloc((width + 1) * height + 5));
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width, height, space: 'b-w', depth: 'uchar', channels: 1 });
    // sharp hands out a greyscale image as sRGB: its first channel is the grey.
    const data = await sharp(png).extractChannel(0).raw().toBuffer();
    expect(Buffer.compare(data, px)).toBe(0);
  });

  it('filters a row that repeats the one above with Up (all zeros) and leaves other rows unfiltered', async () => {
    const width = 64;
    const height = 40;
    const png = await encodeGreyPng(sample(width, height), width, height, Buffer.alloc((width + 1) * height));
    const rows = inflateSync(idat(png));
    const filterOf = (y: number) => rows[y * (width + 1)];
    expect([0, 1, 9, 10, 11, 19, 20, 21].map(filterOf)).toEqual([0, 2, 2, 0, 0, 2, 0, 0]);
    expect(rows.subarray(1 * (width + 1) + 1, 2 * (width + 1)).every((b) => b === 0)).toBe(true);
  });

  it('reads the scratch buffer only up to its own rows (a reused, larger buffer with old bytes is fine)', async () => {
    const width = 50;
    const height = 30;
    const px = sample(width, height);
    const png = await encodeGreyPng(px, width, height, Buffer.alloc((width + 1) * height * 2, 0xab));
    expect(Buffer.compare(await sharp(png).extractChannel(0).raw().toBuffer(), px)).toBe(0);
  });
});

describe('encodePalettePng', () => {
  it('writes an indexed PNG whose pixels decode to the palette colours of the indices it was given', async () => {
    const width = 120;
    const height = 40;
    const indices = sample(width, height).map((v) => v % 5);
    const plte = Buffer.from([255, 255, 255, 26, 35, 126, 0, 77, 64, 183, 28, 28, 10, 20, 30]);
    const png = await encodePalettePng(indices, width, height, Buffer.alloc((width + 1) * height), plte);
    const meta = await sharp(png).metadata();
    expect(meta).toMatchObject({ format: 'png', width, height, isPalette: true });
    const rgb = await sharp(png).removeAlpha().raw().toBuffer();
    const expected = Buffer.alloc(width * height * 3);
    indices.forEach((i, p) => plte.copy(expected, p * 3, i * 3, i * 3 + 3));
    expect(Buffer.compare(rgb, expected)).toBe(0);
  });

  it('writes a diagonal gradient of 161 palette entries (no row repeats the one above) that decodes exactly', async () => {
    const width = 400;
    const height = 300;
    const steps = 160;
    // Entry i: #0b3d91 → #8b0000 in 160 steps; the index follows x + y as a linear gradient's does, with white dots.
    const plte = Buffer.alloc((steps + 2) * 3);
    for (let i = 0; i <= steps; i++) plte.set([11 + Math.round((128 * i) / steps), 61 - Math.round((61 * i) / steps), 145 - Math.round((145 * i) / steps)], i * 3);
    plte.set([255, 255, 255], (steps + 1) * 3);
    const indices = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) indices[y * width + x] = (x >> 3) % 5 === 0 && (y >> 3) % 5 === 0 ? steps + 1 : Math.floor(((x + y) * steps) / (width + height));
    }
    const png = await encodePalettePng(indices, width, height, Buffer.alloc((width + 1) * height), plte);
    expect(await sharp(png).metadata()).toMatchObject({ width, height, isPalette: true });
    const rgb = await sharp(png).removeAlpha().raw().toBuffer();
    const expected = Buffer.alloc(width * height * 3);
    indices.forEach((i, p) => plte.copy(expected, p * 3, i * 3, i * 3 + 3));
    expect(Buffer.compare(rgb, expected)).toBe(0);
  });

  it('refuses a palette that is empty, longer than 256 entries or not whole RGB triples', () => {
    const scratch = Buffer.alloc(4);
    for (const plte of [Buffer.alloc(0), Buffer.alloc(257 * 3), Buffer.alloc(4)]) {
      expect(() => encodePalettePng(Buffer.alloc(1), 1, 1, scratch, plte)).toThrow(/palette/);
    }
  });
});
