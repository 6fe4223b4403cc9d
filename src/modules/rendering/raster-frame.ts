import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import { frameColors } from './design';
import { frameInset } from './frame';
import type { Scene } from './qr-svg';

/**
 * A frame's pixels for the raster renderer (qr-raster.ts). The frame (its shape and its text as outlines) lies
 * outside the symbol's square, so it is rasterized by librsvg from a small SVG of those layers only, one strip per
 * side that has frame pixels, and the strips are copied row by row into the image. The text's outlines are
 * rasterized once per (frame, code size in modules, image size, colours): every code of a batch shares them.
 */
export interface FrameStrip {
  x: number;
  y: number;
  w: number;
  h: number;
  /** raw pixels, `channels` per pixel, already over the background (or transparent) */
  data: Buffer;
}

/** The symbol's square (quiet zone included) in pixels. */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** At most this many bytes of strips are kept (a 4,000 px boxed frame is about 25 MB at 3 channels). */
const strips = new LRUCache<string, Promise<FrameStrip[]>>({ maxSize: 96 * 1024 * 1024, sizeCalculation: (_v, key) => Number(key.split('|')[0]) || 1 });

/** Full precision: the strips must land on the same pixel grid as the modules. */
const num = (n: number): string => String(Math.round(n * 1e6) / 1e6);

export function frameStrips(scene: Scene, k: number, width: number, height: number, channels: 1 | 3 | 4, square: PixelBox): Promise<FrameStrip[]> {
  const design = scene.design;
  if (!scene.framed || !design.frame) return Promise.resolve([]);
  const colors = frameColors(design);
  const inset = Math.ceil(frameInset(scene.total, design.frame) * k) + (design.frame.style === 'rounded_box' ? 2 : 0);
  const rects = [
    { x: 0, y: 0, w: width, h: square.y0 + inset },
    { x: 0, y: square.y1 - inset, w: width, h: height - (square.y1 - inset) },
    { x: 0, y: square.y0 + inset, w: square.x0 + inset, h: square.y1 - square.y0 - 2 * inset },
    { x: square.x1 - inset, y: square.y0 + inset, w: width - (square.x1 - inset), h: square.y1 - square.y0 - 2 * inset },
  ].filter((r) => r.w > 0 && r.h > 0);
  const bytes = rects.reduce((sum, r) => sum + r.w * r.h * channels, 0);
  const key = [bytes, JSON.stringify(design.frame), colors.color, colors.text_color, scene.background, scene.total, width, height, k, channels].join('|');
  let cached = strips.get(key);
  if (!cached) {
    cached = Promise.all(rects.map((r) => drawStrip(scene, k, r, channels, colors)));
    strips.set(key, cached);
    cached.catch(() => strips.delete(key));
  }
  return cached;
}

async function drawStrip(scene: Scene, k: number, r: { x: number; y: number; w: number; h: number }, channels: 1 | 3 | 4, colors: { color: string; text_color: string }): Promise<FrameStrip> {
  const { canvas } = scene;
  const [shape, text] = scene.layers;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="${num(canvas.x + r.x / k)} ${num(canvas.y + r.y / k)} ${num(r.w / k)} ${num(r.h / k)}" width="${r.w}" height="${r.h}">` +
    (scene.background ? `<rect x="${num(canvas.x)}" y="${num(canvas.y)}" width="${num(canvas.w)}" height="${num(canvas.h)}" fill="${scene.background}"/>` : '') +
    `<path fill="${colors.color}" fill-rule="evenodd" d="${shape.d}"/>` +
    (text.d ? `<path fill="${colors.text_color}" d="${text.d}"/>` : '') +
    '</svg>';
  let image = sharp(Buffer.from(svg), { density: 72 });
  image = channels === 4 ? image.ensureAlpha() : channels === 3 ? image.removeAlpha() : image.removeAlpha().greyscale();
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  if (info.width !== r.w || info.height !== r.h || info.channels !== channels) {
    throw new Error(`frame strip drawn ${info.width}×${info.height}×${info.channels}, expected ${r.w}×${r.h}×${channels}`);
  }
  return { ...r, data };
}
