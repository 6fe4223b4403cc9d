import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import type { Design } from './design';
import { buildScene, type LogoImage, type Matrix, type Paint, pixelSize, longestSide, QUIET_ZONE, type Scene } from './qr-svg';
import { encodeGreyPng, encodePalettePng } from './png-encode';
import { Palette, PaletteFull } from './raster-palette';
import { frameStrips } from './raster-frame';
import { eyeBallStamp, eyeFrameStamp, moduleStamp, type Stamp } from './raster-stamps';

/**
 * PNG and WebP without an SVG step, for every design: the scene (qr-svg.ts, the same one SVG and PDF draw) is painted
 * straight into a raw pixel buffer that only has to be encoded (a one-channel PNG by png-encode.ts, the rest by
 * sharp). Modules are snapped to whole pixels
 * (`edges[i] = round(i × px per module)`); rounded shapes, dots and eyes are anti-aliased coverage stamps
 * (raster-stamps.ts) painted as runs; a linear gradient is a colour table indexed by x + y, so a run is one copy; the
 * frame is rasterized once per (frame, size) from a small SVG (raster-frame.ts); the logo is resized by sharp once
 * per size and blended in. Greyscale designs (black on white, the usual case) are one channel, flat-colour PNGs and
 * gradients one byte of palette index a pixel (raster-palette.ts, paletteRamp), a transparent background four channels,
 * the rest three.
 */

type Channels = 1 | 3 | 4;

interface Image {
  data: Buffer;
  width: number;
  channels: Channels;
  /** Set when the one channel holds palette indices, not grey levels (see raster-palette.ts). */
  palette: Palette | null;
}

/** Where a paint's colour for pixel (x, y) is: `src` at `at(x, y)` (for a solid paint `base`, for a linear gradient
 * `base + (x + y) × channels`); `fill` writes a fully covered run [x0, x1). */
interface Painter {
  kind: 'solid' | 'linear' | 'radial';
  src: Uint8Array;
  base: number;
  at(x: number, y: number): number;
  fill(img: Image, y: number, x0: number, x1: number): void;
  /** A gradient drawn as palette indices: the index an anti-aliased edge pixel at (x, y) is mixed from (see
   * paletteRamp). */
  edge?(x: number, y: number): number;
}

const rgb = (hex: string): [number, number, number] => {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};

/** A pixel of one colour as the image stores it: a grey level, RGB, RGBA, or an index into the image's palette. */
function colorBytes(hex: string, channels: Channels, palette: Palette | null): Buffer {
  const [r, g, b] = rgb(hex);
  if (palette) return Buffer.from([palette.index(r, g, b)]);
  return Buffer.from(channels === 1 ? [r] : channels === 3 ? [r, g, b] : [r, g, b, 255]);
}

/** Writes `count` pixels of `one` at `at`: a byte fill (memset) when all its bytes are equal (white, black, a grey, an
 * index), else one pixel, then doubled by copies inside the buffer (a patterned fill is several times slower). */
function fillPixels(data: Buffer, at: number, one: Buffer, count: number): void {
  const bytes = count * one.length;
  if (one.every((b) => b === one[0])) {
    data.fill(one[0], at, at + bytes);
    return;
  }
  one.copy(data, at);
  for (let done = one.length; done < bytes; done *= 2) data.copyWithin(at + done, at, at + Math.min(done, bytes - done));
}

/**
 * Solid colours and the linear gradient's colour table are kept after the pixels in the image's own buffer (its
 * "tail"), so that painting a run is one `copyWithin` inside that buffer: no view object per run (a 4,000 px code with
 * dots paints tens of thousands of runs, and a view each cost more in garbage collection than the copying).
 */
function solid(data: Buffer, at: number, channels: Channels): Painter {
  return {
    kind: 'solid',
    src: data,
    base: at,
    at: () => at,
    fill: (img, y, x0, x1) => data.copyWithin((y * img.width + x0) * channels, at, at + (x1 - x0) * channels),
  };
}

/** `entries` colours from `start` to `end`, interpolated in sRGB as SVG does. */
function colorTable(start: string, end: string, entries: number, channels: Channels, t: (i: number) => number): Buffer {
  const a = rgb(start);
  const b = rgb(end);
  const out = Buffer.alloc(entries * channels);
  for (let i = 0; i < entries; i++) {
    const f = Math.min(1, Math.max(0, t(i)));
    for (let c = 0; c < Math.min(channels, 3); c++) out[i * channels + c] = Math.round(a[c] + (b[c] - a[c]) * f);
    if (channels === 4) out[i * channels + 3] = 255;
  }
  return out;
}

/** The most gradient steps (see paletteRamp): a wider gradient's neighbouring bands differ by up to two levels per
 * channel (255 levels over 160 steps), which leaves the palette room for its edge colours. */
const MAX_GRADIENT_STEPS = 160;
/** Edge coverage levels in a palette image with a gradient (32 without one). */
const GRADIENT_EDGE_LEVELS = 8;

/** The largest difference of a channel between the gradient's two ends, at most MAX_GRADIENT_STEPS. */
function gradientSteps(start: string, end: string): number {
  const a = rgb(start);
  const b = rgb(end);
  return Math.min(MAX_GRADIENT_STEPS, Math.max(1, ...a.map((v, c) => Math.abs(b[c] - v))));
}

interface PaletteRamp {
  /** palette index by step 0..steps */
  index: Uint8Array;
  /** palette index an edge pixel of that step is mixed from: the middle step of its group */
  edge: Uint8Array;
}

/**
 * A gradient in a palette image: its colours as `steps + 1` entries (gradientSteps), so that neighbouring bands differ
 * by at most one level in each channel (two for a gradient wider than MAX_GRADIENT_STEPS levels): a smooth gradient
 * stays smooth. Anti-aliased
 * edges mix a coarser version of the gradient (as many groups of neighbouring steps as the palette has room for, each
 * mixed from its middle step) with what lies under them, at GRADIENT_EDGE_LEVELS coverage levels, so that edges take
 * a bounded number of entries; an edge pixel is then off the RGB drawing by at most half a group's span times its
 * coverage plus half a coverage level (under 20 levels of 255 for the widest gradient), along a module's edge only.
 * Throws PaletteFull (the image is drawn in RGB) when fewer than four groups fit.
 */
function paletteRamp(start: string, end: string, palette: Palette): PaletteRamp {
  const steps = gradientSteps(start, end);
  const a = rgb(start);
  const b = rgb(end);
  const index = new Uint8Array(steps + 1);
  for (let i = 0; i <= steps; i++) {
    const [r, g, bl] = a.map((v, c) => Math.round(v + ((b[c] - v) * i) / steps));
    index[i] = palette.index(r, g, bl);
  }
  // What is left, less some room for the edges of solid colours and eye colours, goes to edge colours: each group
  // mixed over the background takes GRADIENT_EDGE_LEVELS − 1 entries.
  const free = 256 - palette.size - 24;
  const groups = Math.min(steps + 1, Math.floor(free / (GRADIENT_EDGE_LEVELS - 1)));
  if (groups < 4) throw new PaletteFull();
  const span = Math.ceil((steps + 1) / groups);
  const edge = Uint8Array.from({ length: steps + 1 }, (_, i) => index[Math.min(steps, Math.floor(i / span) * span + (span >> 1))]);
  return { index, edge };
}

/** The design's gradient. Linear gradients run along the symbol's diagonal (qr-svg.ts), so the colour depends on
 * x + y only: one table (written into the image buffer's tail at `tableAt`), and a run of pixels is one copy from it.
 * Radial: a table by distance from the centre. In a palette image both tables hold palette indices (paletteRamp). */
function gradientPainter(scene: Scene, k: number, img: Image, height: number, tableAt: number): Painter {
  const g = scene.gradient!;
  const { canvas } = scene;
  const { data, width, channels, palette } = img;
  const ramp = palette ? paletteRamp(g.start, g.end, palette) : null;
  const steps = ramp ? ramp.index.length - 1 : 0;
  if (g.type === 'linear') {
    // t = ((u − x1) + (v − y1)) / (dx + dy) for the diagonal (x1, y1) → (x2, y2) with dx = dy; u = canvas.x + (px + ½) / k.
    const span = g.x2 - g.x1 + (g.y2 - g.y1);
    const t = (s: number) => Math.min(1, Math.max(0, ((s + 1) / k + canvas.x + canvas.y - g.x1 - g.y1) / span));
    let edge: Uint8Array | null = null;
    if (ramp) {
      edge = new Uint8Array(width + height);
      for (let s = 0; s < width + height; s++) {
        const step = Math.round(t(s) * steps);
        data[tableAt + s] = ramp.index[step];
        edge[s] = ramp.edge[step];
      }
    } else colorTable(g.start, g.end, width + height, channels, t).copy(data, tableAt);
    return {
      kind: 'linear',
      src: data,
      base: tableAt,
      at: (x, y) => tableAt + (x + y) * channels,
      fill: (img, y, x0, x1) => data.copyWithin((y * width + x0) * channels, tableAt + (x0 + y) * channels, tableAt + (x1 + y) * channels),
      ...(edge && { edge: (x: number, y: number) => edge[x + y] }),
    };
  }
  const cx = (g.x1 - canvas.x) * k;
  const cy = (g.y1 - canvas.y) * k;
  if (ramp) return radialRamp(ramp, cx, cy, steps / (g.r * k), img);
  const STEPS = 2048;
  const lut = colorTable(g.start, g.end, STEPS + 1, channels, (i) => i / STEPS);
  const scale = STEPS / (g.r * k);
  const at = (x: number, y: number): number => {
    const dx = x + 0.5 - cx;
    const dy = y + 0.5 - cy;
    return Math.min(STEPS, Math.round(Math.sqrt(dx * dx + dy * dy) * scale)) * channels;
  };
  return {
    kind: 'radial',
    src: lut,
    base: 0,
    at,
    fill: (img, y, x0, x1) => {
      const d = img.data;
      for (let x = x0, o = (y * img.width + x0) * channels; x < x1; x++, o += channels) {
        const s = at(x, y);
        for (let c = 0; c < channels; c++) d[o + c] = lut[s + c];
      }
    },
  };
}

/**
 * A radial gradient in a palette image. A pixel's step is its distance from the centre × `scale`, rounded: step b
 * holds the squared distances below ((b + ½) / scale)². Along a run the squared distance grows by 2·dx + 1 from one
 * pixel to the next, so the step is followed by comparisons against that table instead of a square root a pixel.
 */
function radialRamp(ramp: PaletteRamp, cx: number, cy: number, scale: number, img: Image): Painter {
  const { data, width } = img;
  const { index } = ramp;
  const steps = index.length - 1;
  const below = Float64Array.from({ length: steps }, (_, b) => ((b + 0.5) / scale) ** 2);
  const stepAt = (x: number, y: number): number => {
    const dx = x + 0.5 - cx;
    const dy = y + 0.5 - cy;
    return Math.min(steps, Math.round(Math.sqrt(dx * dx + dy * dy) * scale));
  };
  return {
    kind: 'radial',
    src: index,
    base: 0,
    at: stepAt,
    fill: (_img, y, x0, x1) => {
      const dy = y + 0.5 - cy;
      let dx = x0 + 0.5 - cx;
      let d2 = dx * dx + dy * dy;
      let b = stepAt(x0, y);
      // The current step's squared distances are [lo, hi); most pixels stay inside.
      let lo = b > 0 ? below[b - 1] : -1;
      let hi = b < steps ? below[b] : Infinity;
      let v = index[b];
      for (let o = y * width + x0, end = y * width + x1; o < end; o++) {
        if (d2 >= hi || d2 < lo) {
          while (b < steps && d2 >= below[b]) b++;
          while (b > 0 && d2 < below[b - 1]) b--;
          lo = b > 0 ? below[b - 1] : -1;
          hi = b < steps ? below[b] : Infinity;
          v = index[b];
        }
        data[o] = v;
        d2 += 2 * dx + 1;
        dx += 1;
      }
    },
    edge: (x, y) => ramp.edge[stepAt(x, y)],
  };
}

/** Paints `src[s..]` over the pixel at byte offset `o` with coverage `cov` (0..255). */
function blend(img: Image, o: number, src: Uint8Array, s: number, cov: number): void {
  const d = img.data;
  if (img.channels !== 4) {
    for (let c = 0; c < img.channels; c++) d[o + c] = d[o + c] + Math.round(((src[s + c] - d[o + c]) * cov) / 255);
    return;
  }
  // Source-over with straight alpha.
  const sa = (cov / 255) * (src[s + 3] / 255);
  const da = d[o + 3] / 255;
  const oa = sa + da * (1 - sa);
  if (oa <= 0) return;
  for (let c = 0; c < 3; c++) d[o + c] = Math.round((src[s + c] * sa + d[o + c] * da * (1 - sa)) / oa);
  d[o + 3] = Math.round(oa * 255);
}

function paintStamp(img: Image, stamp: Stamp, ox: number, oy: number, p: Painter): void {
  const { runs, rowStart } = stamp;
  const ch = img.channels;
  const d = img.data;
  const src = p.src;
  const pal = img.palette;
  // Partial pixels: colour from a solid or x + y table inline (one per edge pixel, the hot loop), else at().
  const step = p.kind === 'solid' ? 0 : p.kind === 'linear' ? ch : -1;
  for (let y = 0; y < stamp.h; y++) {
    const py = oy + y;
    const row = py * img.width;
    for (let i = rowStart[y]; i < rowStart[y + 1]; i++) {
      const x0 = ox + runs[3 * i];
      const x1 = ox + runs[3 * i + 1];
      const cov = runs[3 * i + 2];
      if (cov === 255) {
        p.fill(img, py, x0, x1);
      } else if (pal) {
        // Palette indices: the blended colour's index, from a solid colour or the gradient's edge colour there.
        if (p.edge && pal.opaque(cov)) {
          // Coverage that rounds to full: the gradient's own colour there, not the coarser edge colour.
          for (let x = x0, o = row + x0; x < x1; x++, o++) d[o] = src[p.at(x, py)];
        } else if (p.edge) {
          for (let x = x0, o = row + x0; x < x1; x++, o++) d[o] = pal.mix(p.edge(x, py), d[o], cov);
        } else {
          const s = src[p.base];
          for (let o = row + x0; o < row + x1; o++) d[o] = pal.mix(s, d[o], cov);
        }
      } else if (ch === 4 || step < 0) {
        for (let x = x0; x < x1; x++) blend(img, (row + x) * ch, src, p.at(x, py), cov);
      } else {
        // round((src × cov + dst × (255 − cov)) / 255) in integers: v / 255 rounded is (v + 128 + ((v + 128) >> 8)) >> 8.
        const inv = 255 - cov;
        for (let x = x0, o = (row + x0) * ch, s = p.base + step * (x0 + py); x < x1; x++, o += ch, s += step) {
          for (let c = 0; c < ch; c++) {
            const v = src[s + c] * cov + d[o + c] * inv + 128;
            d[o + c] = (v + (v >> 8)) >> 8;
          }
        }
      }
    }
  }
}

/** Logos resized for a box, by the logo's bytes (a SHA-256 digest) and the box: a batch draws the same logo at the
 * same size a thousand times, and in the api's renderer child each image's logo arrives as a new Buffer, so the bytes,
 * not the object, are the key. Raw RGBA; at most 8 sizes (a 4,000 px code's logo box is about 4 MB). */
const resizedLogos = new LRUCache<string, Promise<Buffer>>({ max: 8 });

function resizedLogo(png: Buffer, w: number, h: number): Promise<Buffer> {
  const key = `${createHash('sha256').update(png).digest('base64')}:${w}x${h}`;
  let resized = resizedLogos.get(key);
  if (!resized) {
    resized = sharp(png).resize(w, h, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } }).ensureAlpha().raw().toBuffer();
    resizedLogos.set(key, resized);
    resized.catch(() => resizedLogos.delete(key));
  }
  return resized;
}

function isGrey(hex: string): boolean {
  const [r, g, b] = rgb(hex);
  return r === g && g === b;
}

/** The colours a design paints with (the logo aside). */
function designColors(scene: Scene): string[] {
  const d = scene.design;
  const colors = [d.colors.background, d.colors.foreground];
  if (scene.gradient) colors.push(scene.gradient.start, scene.gradient.end);
  if (d.eye_colors) colors.push(d.eye_colors.frame, d.eye_colors.ball);
  if (scene.framed && d.frame) colors.push(d.frame.color ?? d.colors.foreground, d.frame.text_color ?? d.colors.background);
  return colors;
}

/** Resized logos whose colours did not fit a palette: they are drawn in RGB straight away next time. */
const manyColoured = new WeakSet<Buffer>();
/** The same beside a gradient, which leaves a logo fewer entries: a logo that did not fit there may fit a flat design. */
const manyColouredBesideGradient = new WeakSet<Buffer>();

export async function drawRaster(m: Matrix, design: Design, logo: LogoImage | null, logoPng: Buffer | null, size: number, format: 'png' | 'webp'): Promise<Buffer> {
  const scene = buildScene(m, design, logo);
  const { canvas } = scene;
  const k = size / longestSide(canvas);
  let placed: PlacedLogo | null = null;
  if (scene.logo && logoPng) {
    const { box } = scene.logo;
    const left = Math.round((box.x0 - canvas.x) * k);
    const top = Math.round((box.y0 - canvas.y) * k);
    const w = Math.max(1, Math.round((box.x1 - canvas.x) * k) - left);
    const h = Math.max(1, Math.round((box.y1 - canvas.y) * k) - top);
    placed = { left, top, w, h, pixels: await resizedLogo(logoPng, w, h) };
  }
  const channels: Channels = scene.background === null ? 4 : !placed && designColors(scene).every(isGrey) ? 1 : 3;
  // A colour PNG of flat colours or a gradient (no frame text, a logo of few colours) is drawn as palette indices, one
  // byte a pixel like a greyscale one, and written by the same encoder (raster-palette.ts).
  const g = scene.gradient;
  const logoMisfits = g ? manyColouredBesideGradient : manyColoured;
  if (format === 'png' && channels === 3 && !scene.framed && !(placed && logoMisfits.has(placed.pixels))) {
    try {
      return await paintRaster(scene, m, size, placed, 'png', 1, new Palette(g ? GRADIENT_EDGE_LEVELS : undefined));
    } catch (err) {
      if (!(err instanceof PaletteFull)) throw err;
      if (placed) logoMisfits.add(placed.pixels);
    }
  }
  return paintRaster(scene, m, size, placed, format, channels, null);
}

interface PlacedLogo {
  left: number;
  top: number;
  w: number;
  h: number;
  /** raw RGBA, w × h */
  pixels: Buffer;
}

async function paintRaster(scene: Scene, m: Matrix, size: number, placed: PlacedLogo | null, format: 'png' | 'webp', channels: Channels, palette: Palette | null): Promise<Buffer> {
  const { canvas } = scene;
  const { width, height } = pixelSize(canvas, size);
  const k = size / longestSide(canvas);

  // The pixels, then the tail (see solid()): a row per solid colour, the linear gradient's table.
  const body = scene.layers[scene.bodyLayer];
  const eyeFrames = scene.layers[scene.bodyLayer + 1];
  const eyeBalls = scene.layers[scene.bodyLayer + 2];
  const paints = [body.paint, eyeFrames.paint, eyeBalls.paint];
  const rowBytes = width * channels;
  const pixelBytes = rowBytes * height;
  const solidAt = new Map<string, number>();
  let tail = pixelBytes;
  for (const paint of paints) {
    if (paint !== null && !solidAt.has(paint)) {
      solidAt.set(paint, tail);
      tail += rowBytes;
    }
  }
  const tableAt = tail;
  if (scene.gradient?.type === 'linear' && paints.includes(null)) tail += (width + height) * channels;
  const data = takeBuffer(tail);
  try {
    const img: Image = { data, width, channels, palette };
    // The background first: it is the palette's index 0.
    if (channels === 4) data.fill(0, 0, pixelBytes);
    else fillPixels(data, 0, colorBytes(scene.background!, channels, palette), width * height);
    for (const [paint, at] of solidAt) fillPixels(data, at, colorBytes(paint, channels, palette), width);
    await drawInto(img, scene, m, k, height, tableAt, solidAt, placed);
    return await encode(img, height, format);
  } finally {
    giveBack(data);
  }
}

async function drawInto(img: Image, scene: Scene, m: Matrix, k: number, height: number, tableAt: number, solidAt: Map<string, number>, placed: PlacedLogo | null): Promise<void> {
  const { data, width, channels, palette } = img;
  const { canvas, design } = scene;
  const rowBytes = width * channels;
  const body = scene.layers[scene.bodyLayer];
  const eyeFrames = scene.layers[scene.bodyLayer + 1];
  const eyeBalls = scene.layers[scene.bodyLayer + 2];
  const n = m.size;
  const q = QUIET_ZONE;
  const total = scene.total;
  const xe = new Int32Array(total + 1);
  const ye = new Int32Array(total + 1);
  for (let i = 0; i <= total; i++) {
    xe[i] = Math.round((i - canvas.x) * k);
    ye[i] = Math.round((i - canvas.y) * k);
  }

  for (const strip of await frameStrips(scene, k, width, height, channels, { x0: xe[0], y0: ye[0], x1: xe[total], y1: ye[total] })) {
    const stripRow = strip.w * channels;
    for (let y = 0; y < strip.h; y++) strip.data.copy(data, ((strip.y + y) * width + strip.x) * channels, y * stripRow, (y + 1) * stripRow);
  }

  const painter = (paint: Paint): Painter => (paint === null ? (gradient ??= gradientPainter(scene, k, img, height, tableAt)) : solid(data, solidAt.get(paint)!, channels));
  let gradient: Painter | undefined;

  // Body: every dark module outside the finder patterns and the cleared logo area (qr-svg.ts bodyPath).
  const cleared = scene.cleared;
  const mask = new Uint8Array(n * n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (m.data[r * n + c] !== 1) continue;
      if ((r < 7 && c < 7) || (r < 7 && c >= n - 7) || (r >= n - 7 && c < 7)) continue;
      if (cleared && c + 1 > cleared.x0 && c < cleared.x1 && r + 1 > cleared.y0 && r < cleared.y1) continue;
      mask[r * n + c] = 1;
    }
  }
  const dark = (r: number, c: number): boolean => r >= 0 && c >= 0 && r < n && c < n && mask[r * n + c] === 1;
  const shape = design.shapes.body;
  const bodyPaint = painter(body.paint);
  // This image's module stamps by (corners, width, height): a lookup per module, without building a cache key.
  const local = new Map<number, Stamp>();
  const stampFor = (corners: number, w: number, h: number): Stamp => {
    const key = corners * 67108864 + w * 8192 + h;
    let stamp = local.get(key);
    if (!stamp) local.set(key, (stamp = moduleStamp(shape, corners, w, h)));
    return stamp;
  };
  for (let r = 0; r < n; r++) {
    const y0 = ye[r + q];
    const h = ye[r + q + 1] - y0;
    if (shape === 'square') {
      // Square modules: one fill per horizontal run of dark modules, and with one colour the module row's first
      // pixel row is copied to the others (eyes are painted afterwards, over it).
      for (let y = y0; y < y0 + h; y++) {
        if (y > y0 && bodyPaint.kind === 'solid') {
          const from = (y0 * width + xe[q]) * channels;
          data.copyWithin(from + (y - y0) * rowBytes, from, from + (xe[q + n] - xe[q]) * channels);
          continue;
        }
        for (let c = 0; c < n; ) {
          if (mask[r * n + c] !== 1) {
            c++;
            continue;
          }
          const start = c;
          while (c < n && mask[r * n + c] === 1) c++;
          bodyPaint.fill(img, y, xe[start + q], xe[c + q]);
        }
      }
      continue;
    }
    for (let c = 0; c < n; c++) {
      if (mask[r * n + c] !== 1) continue;
      let corners = 0;
      if (shape !== 'dots') {
        const top = dark(r - 1, c);
        const bottom = dark(r + 1, c);
        const left = dark(r, c - 1);
        const right = dark(r, c + 1);
        corners = (!top && !left ? 1 : 0) | (!top && !right ? 2 : 0) | (!bottom && !right ? 4 : 0) | (!bottom && !left ? 8 : 0);
      }
      const x0 = xe[c + q];
      paintStamp(img, stampFor(corners, xe[c + q + 1] - x0, h), x0, y0, bodyPaint);
    }
  }

  // Eyes: a 7 × 7 ring and a 3 × 3 ball at three corners.
  const framePaint = painter(eyeFrames.paint);
  const ballPaint = painter(eyeBalls.paint);
  for (const [ex, ey] of [
    [q, q],
    [q + n - 7, q],
    [q, q + n - 7],
  ]) {
    const xs = xe.subarray(ex, ex + 8);
    const ys = ye.subarray(ey, ey + 8);
    paintStamp(img, eyeFrameStamp(design.shapes.eye_frame, xs, ys), xe[ex], ye[ey], framePaint);
    paintStamp(img, eyeBallStamp(design.shapes.eye_ball, design.shapes.eye_frame, xs, ys), xe[ex], ye[ey], ballPaint);
  }

  if (placed) {
    const { left, top, w, h, pixels: logoPixels } = placed;
    for (let y = 0; y < h; y++) {
      if (palette) {
        palette.composite(logoPixels, y * w * 4, data, (top + y) * width + left, w);
        continue;
      }
      for (let x = 0, s = y * w * 4, o = ((top + y) * width + left) * channels; x < w; x++, s += 4, o += channels) {
        const a = logoPixels[s + 3];
        if (a === 0) continue;
        if (a === 255 && channels !== 4) {
          data[o] = logoPixels[s];
          data[o + 1] = logoPixels[s + 1];
          data[o + 2] = logoPixels[s + 2];
        } else blend(img, o, logoPixels, s, channels === 4 ? 255 : a);
      }
    }
  }
}

async function encode(img: Image, height: number, format: 'png' | 'webp'): Promise<Buffer> {
  const { data, width, channels, palette } = img;
  // A greyscale or palette PNG (black on white, the usual case, or flat colours): written row-filtered with zlib's
  // run-length strategy (png-encode.ts), several times faster than libvips and smaller.
  if (format === 'png' && channels === 1) {
    const scratch = takeBuffer((width + 1) * height);
    try {
      return await (palette ? encodePalettePng(data, width, height, scratch, palette.plte()) : encodeGreyPng(data, width, height, scratch));
    } finally {
      giveBack(scratch);
    }
  }
  // WebP: lossless (a QR code is flat colour; lossy artefacts blur module edges), low effort (speed over bytes).
  // Colour PNG (a frame's anti-aliased text, a many-coloured logo, a palette too full for a gradient's edges): three
  // or four bytes a pixel, where the encoder is most of the cost, at zlib level 1: about 20 % faster than level 2
  // (which is about twice as fast as 6) for files 20–45 % larger (a 4,000 px gradient code in RGB: 1.24 MB instead of
  // 0.86 MB; level 6 gives 0.76 MB).
  let image = sharp(data.subarray(0, width * channels * height), { raw: { width, height, channels } });
  // Keep a greyscale image one channel (sharp would otherwise write sRGB).
  if (channels === 1) image = image.toColourspace('b-w');
  return (format === 'webp' ? image.webp({ lossless: true, effort: 1 }) : image.png({ compressionLevel: 1 })).toBuffer();
}

/** Pixel buffers kept for the next image of the same byte size (a batch draws a thousand of one size): allocating
 * 16–64 MB per image costs more in garbage collection than drawing it. At most four are kept (the renderer draws at
 * most two images at once, each with its pixels and, for a greyscale PNG, its filtered rows). */
const spare: Buffer[] = [];

function takeBuffer(bytes: number): Buffer {
  const i = spare.findIndex((b) => b.length === bytes);
  return i >= 0 ? spare.splice(i, 1)[0] : Buffer.allocUnsafeSlow(bytes);
}

function giveBack(buffer: Buffer): void {
  spare.push(buffer);
  if (spare.length > 4) spare.shift();
}
