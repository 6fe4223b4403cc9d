/**
 * The palette of a colour PNG drawn as indices (qr-raster.ts): a design of flat colours — background, foreground, eye
 * colours, the anti-aliased edges between them, a logo of few colours — fits PNG's 256-entry palette, so it is drawn
 * one byte a pixel and written by the same row-filtered run-length encoder as a greyscale PNG (png-encode.ts): a third
 * of the bytes to draw and deflate, and a far smaller file than RGB.
 *
 * Edge coverage is kept at 32 levels (5 bits; the RGB path keeps 255): each paint then adds at most 31 edge colours, so
 * three paints and a background take under 100 entries, and the steps (3 % of the contrast) are far below what a
 * print or a screen shows. A gradient's palette keeps 8 levels, its steps taking most of the entries (qr-raster.ts
 * paletteRamp). When a logo (or anything else) needs more than 256 colours, `PaletteFull` is thrown and the image is
 * drawn in RGB instead.
 */
export class PaletteFull extends Error {
  constructor() {
    super('more than 256 colours');
  }
}

export class Palette {
  /** Coverage 0..255 → 0..levels. */
  private readonly level: Uint8Array;
  private readonly rgb = new Uint8Array(256 * 3);
  private count = 0;
  private readonly byColor = new Map<number, number>();
  /** (source index, destination index) → index by coverage level, -1 until needed. */
  private readonly mixes = new Map<number, Int16Array>();
  private lastPair = -1;
  private lastMix: Int16Array = new Int16Array(0);

  /** `levels`: the edge coverage levels kept (32 by default; a gradient's palette keeps 8, see qr-raster.ts). */
  constructor(private readonly levels = 32) {
    this.level = Uint8Array.from({ length: 256 }, (_, cov) => Math.round((cov * levels) / 255));
  }

  /** How many entries are taken. */
  get size(): number {
    return this.count;
  }

  /** The index of a colour, added when new. */
  index(r: number, g: number, b: number): number {
    const key = (r << 16) | (g << 8) | b;
    const known = this.byColor.get(key);
    if (known !== undefined) return known;
    if (this.count === 256) throw new PaletteFull();
    const i = this.count++;
    this.rgb[3 * i] = r;
    this.rgb[3 * i + 1] = g;
    this.rgb[3 * i + 2] = b;
    this.byColor.set(key, i);
    return i;
  }

  /** Whether coverage `cov` (0..255) is kept as full: mix() then gives `src` itself. */
  opaque(cov: number): boolean {
    return this.level[cov] === this.levels;
  }

  /** The index of colour `src` painted over colour `dst` with coverage `cov` (0..255). */
  mix(src: number, dst: number, cov: number): number {
    const level = this.level[cov];
    if (level === 0) return dst;
    if (level === this.levels) return src;
    const pair = (src << 8) | dst;
    let table = this.lastMix;
    if (pair !== this.lastPair) {
      table = this.mixes.get(pair) ?? new Int16Array(this.levels).fill(-1);
      this.mixes.set(pair, table);
      this.lastPair = pair;
      this.lastMix = table;
    }
    let i = table[level];
    if (i < 0) {
      const c = this.rgb;
      const over = (ch: number) => Math.round(c[3 * dst + ch] + ((c[3 * src + ch] - c[3 * dst + ch]) * level) / this.levels);
      i = table[level] = this.index(over(0), over(1), over(2));
    }
    return i;
  }

  /**
   * Paints `count` RGBA pixels of `rgba` from byte `s` over the indices in `dst` from `o` (a logo's row), blending as
   * the RGB path does; a run of equal pixels over equal indices (a flat logo) costs one lookup.
   */
  composite(rgba: Uint8Array, s: number, dst: Uint8Array, o: number, count: number): void {
    const c = this.rgb;
    let lastKey = -1;
    let lastDst = -1;
    let lastIndex = 0;
    for (let end = o + count; o < end; o++, s += 4) {
      const a = rgba[s + 3];
      if (a === 0) continue;
      const key = (rgba[s] << 24) | (rgba[s + 1] << 16) | (rgba[s + 2] << 8) | a;
      const under = dst[o];
      if (key !== lastKey || under !== lastDst) {
        lastKey = key;
        lastDst = under;
        const over = (ch: number) => c[3 * under + ch] + Math.round(((rgba[s + ch] - c[3 * under + ch]) * a) / 255);
        lastIndex = a === 255 ? this.index(rgba[s], rgba[s + 1], rgba[s + 2]) : this.index(over(0), over(1), over(2));
      }
      dst[o] = lastIndex;
    }
  }

  /** The PLTE chunk's data: RGB triples for the indices in use. */
  plte(): Buffer {
    return Buffer.from(this.rgb.subarray(0, 3 * this.count));
  }
}
