import sharp from 'sharp';
import type { Design } from './design';
import { buildScene, type LogoImage, type Matrix, QUIET_ZONE } from './qr-svg';

/**
 * PNG and WebP without an SVG step, for the designs made of whole modules: square body, square eye frames and balls,
 * plain colours, no frame. Each module becomes a block of pixels between rounded edges (`edges[i] = round(i × px)`),
 * written row by row into a raw buffer that sharp only has to encode; a logo is composited by sharp. Greyscale designs
 * (black on white, the usual case) are one channel. Other designs go through the SVG and librsvg (renderRaster).
 */
export function fastRasterEligible(design: Design): boolean {
  const s = design.shapes;
  return s.body === 'square' && s.eye_frame === 'square' && s.eye_ball === 'square' && !design.gradient && !design.transparent_background && (!design.frame || design.frame.style === 'none');
}

/** Logos resized for a box, per logo buffer (the images module hands out one Buffer per stored logo): a batch draws
 * the same logo at the same size a thousand times. */
const resizedLogos = new WeakMap<Buffer, Map<string, Promise<Buffer>>>();

function resizedLogo(png: Buffer, w: number, h: number): Promise<Buffer> {
  let sizes = resizedLogos.get(png);
  if (!sizes) resizedLogos.set(png, (sizes = new Map()));
  const key = `${w}x${h}`;
  let resized = sizes.get(key);
  if (!resized) {
    if (sizes.size >= 8) sizes.clear();
    resized = sharp(png).resize(w, h, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } }).png({ compressionLevel: 1 }).toBuffer();
    sizes.set(key, resized);
    resized.catch(() => sizes.delete(key));
  }
  return resized;
}

const rgb = (hex: string): [number, number, number] => {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};

export async function fastRaster(m: Matrix, design: Design, logo: LogoImage | null, logoPng: Buffer | null, size: number, format: 'png' | 'webp'): Promise<Buffer> {
  const n = m.size;
  const q = QUIET_ZONE;
  const total = n + 2 * q;
  const k = size / total;
  const edges = new Int32Array(total + 1);
  for (let i = 0; i <= total; i++) edges[i] = Math.round(i * k);

  const colors = [design.colors.background, design.colors.foreground, design.eye_colors?.frame ?? design.colors.foreground, design.eye_colors?.ball ?? design.colors.foreground].map(rgb);
  // One channel for greyscale designs without a logo (a logo brings its colours).
  const grey = !(logo && logoPng) && colors.every(([r, g, b]) => r === g && g === b);
  const channels = grey ? 1 : 3;
  const paint = colors.map((c) => (grey ? Buffer.from([c[0]]) : Buffer.from(c)));

  const scene = buildScene(m, design, logo);
  const cleared = scene.cleared;
  const isCleared = (r: number, c: number) => cleared !== null && c + 1 > cleared.x0 && c < cleared.x1 && r + 1 > cleared.y0 && r < cleared.y1;
  // 0 background, 1 body, 2 eye frame, 3 eye ball
  const kind = (r: number, c: number): number => {
    if (m.data[r * n + c] !== 1) return 0;
    const fr = r < 7 ? r : r >= n - 7 ? r - (n - 7) : -1;
    const fc = c < 7 ? c : c >= n - 7 ? c - (n - 7) : -1;
    if (fr >= 0 && fc >= 0 && !(r >= n - 7 && c >= n - 7)) return fr >= 2 && fr <= 4 && fc >= 2 && fc <= 4 ? 3 : 2;
    return isCleared(r, c) ? 0 : 1;
  };

  const stride = size * channels;
  const out = Buffer.allocUnsafe(stride * size);
  const blank = Buffer.alloc(stride);
  blank.fill(paint[0]);
  const row = Buffer.alloc(stride);
  // Quiet zone rows above and below.
  for (let y = 0; y < edges[q]; y++) blank.copy(out, y * stride);
  for (let y = edges[q + n]; y < size; y++) blank.copy(out, y * stride);
  for (let r = 0; r < n; r++) {
    blank.copy(row);
    for (let c = 0; c < n; c++) {
      const kd = kind(r, c);
      if (kd !== 0) row.fill(paint[kd], edges[c + q] * channels, edges[c + q + 1] * channels);
    }
    for (let y = edges[r + q]; y < edges[r + q + 1]; y++) row.copy(out, y * stride);
  }

  let image = sharp(out, { raw: { width: size, height: size, channels } });
  // Keep a greyscale image one channel (sharp would otherwise write sRGB).
  if (channels === 1) image = image.toColourspace('b-w');
  if (scene.logo && logoPng) {
    const { box } = scene.logo;
    const left = Math.round(box.x0 * k);
    const top = Math.round(box.y0 * k);
    const w = Math.max(1, Math.round((box.x1 - box.x0) * k));
    const h = Math.max(1, Math.round((box.y1 - box.y0) * k));
    const input = await resizedLogo(logoPng, w, h);
    const { data, info } = await image.composite([{ input, left, top }]).raw().toBuffer({ resolveWithObject: true });
    image = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } }).removeAlpha();
  }
  return (format === 'webp' ? image.webp({ lossless: true, effort: 1 }) : image.png({ compressionLevel: 6 })).toBuffer();
}
