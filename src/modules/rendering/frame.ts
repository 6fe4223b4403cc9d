import { join } from 'node:path';
import * as fontkit from 'fontkit';

/** Frames with a call to action around the symbol (docs/design.md#frames). Pure geometry: everything here is in module
 * units, with the symbol and its quiet zone occupying the square [0, T] × [0, T]. */

export type FrameStyle = 'none' | 'box' | 'banner_bottom' | 'banner_top' | 'rounded_box';
export const FRAME_STYLES: readonly FrameStyle[] = ['none', 'box', 'banner_bottom', 'banner_top', 'rounded_box'];
export const FRAME_TEXT_MAX = 24;
export const DEFAULT_FRAME_TEXT = 'Scan me';

/** A frame as stored: `text_color` and `color` null follow the design's background and foreground. */
export interface Frame {
  style: FrameStyle;
  text: string | null;
  text_color: string | null;
  color: string | null;
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface FrameLayout {
  /** the whole image, symbol and quiet zone included (module units; x and y may be negative) */
  canvas: Rect;
  /** the frame's coloured area (an SVG path, even-odd) */
  shape: string;
  /** the text as outlines (an SVG path, nonzero), or '' */
  text: string;
}

const FONT_FILE = join(__dirname, 'fonts', 'DejaVuSans-Bold.ttf');
let font: fontkit.Font | null = null;

/** DejaVu Sans Bold, shipped in src/modules/rendering/fonts with its licence; loaded once. */
function frameFont(): fontkit.Font {
  if (!font) {
    const f = fontkit.openSync(FONT_FILE);
    font = 'fonts' in f ? f.fonts[0] : f;
  }
  return font;
}

/** Characters of `text` the frame font has no glyph for (they would print as empty boxes). */
export function missingGlyphs(text: string): string[] {
  const f = frameFont();
  return [...new Set([...text].filter((ch) => !f.hasGlyphForCodePoint(ch.codePointAt(0)!)))];
}

const fmt = (n: number): string => String(Math.round(n * 1000) / 1000);

/** A rectangle with the same radius on every corner, clockwise (or counter-clockwise for holes). */
function roundRect(x: number, y: number, w: number, h: number, r: number, ccw = false): string {
  if (r <= 0) return ccw ? `M${fmt(x)} ${fmt(y)}V${fmt(y + h)}H${fmt(x + w)}V${fmt(y)}Z` : `M${fmt(x)} ${fmt(y)}H${fmt(x + w)}V${fmt(y + h)}H${fmt(x)}Z`;
  const a = (ex: number, ey: number) => `A${fmt(r)} ${fmt(r)} 0 0 ${ccw ? 0 : 1} ${fmt(ex)} ${fmt(ey)}`;
  if (ccw) {
    return `M${fmt(x + r)} ${fmt(y)}${a(x, y + r)}V${fmt(y + h - r)}${a(x + r, y + h)}H${fmt(x + w - r)}${a(x + w, y + h - r)}V${fmt(y + r)}${a(x + w - r, y)}Z`;
  }
  return `M${fmt(x + r)} ${fmt(y)}H${fmt(x + w - r)}${a(x + w, y + r)}V${fmt(y + h - r)}${a(x + w - r, y + h)}H${fmt(x + r)}${a(x, y + h - r)}V${fmt(y + r)}${a(x + r, y)}Z`;
}

/** The text's outlines, centred in `band`, as large as fits (at most half the band's height). */
function textPath(text: string, band: Rect): string {
  const f = frameFont();
  const run = f.layout(text);
  const capHeight = f.glyphForCodePoint(0x48).bbox.maxY; // 'H'
  const maxWidth = band.w * 0.88;
  let scale = (band.h * 0.5) / capHeight;
  if (run.advanceWidth * scale > maxWidth) scale = maxWidth / run.advanceWidth;
  let penX = band.x + (band.w - run.advanceWidth * scale) / 2;
  const baseline = band.y + band.h / 2 + (capHeight * scale) / 2;
  const out: string[] = [];
  run.glyphs.forEach((glyph, i) => {
    const pos = run.positions[i];
    const ox = penX + pos.xOffset * scale;
    const oy = baseline - pos.yOffset * scale;
    const X = (v: number) => fmt(ox + v * scale);
    const Y = (v: number) => fmt(oy - v * scale);
    for (const { command, args } of glyph.path.commands) {
      if (command === 'moveTo') out.push(`M${X(args[0])} ${Y(args[1])}`);
      else if (command === 'lineTo') out.push(`L${X(args[0])} ${Y(args[1])}`);
      else if (command === 'quadraticCurveTo') out.push(`Q${X(args[0])} ${Y(args[1])} ${X(args[2])} ${Y(args[3])}`);
      else if (command === 'bezierCurveTo') out.push(`C${X(args[0])} ${Y(args[1])} ${X(args[2])} ${Y(args[3])} ${X(args[4])} ${Y(args[5])}`);
      else if (command === 'closePath') out.push('Z');
    }
    penX += pos.xAdvance * scale;
  });
  return out.join('');
}

/** How far (module units) the frame's coloured shape reaches inside the symbol's square [0, t]²: the rounded box's
 * hole has rounded corners, so its corners paint into the quiet zone's outer corners; 0 for the other styles. */
export function frameInset(t: number, frame: Frame): number {
  return frame.style === 'rounded_box' ? (t * 0.07) / 2 : 0;
}

/**
 * The frame around a symbol whose image (symbol + quiet zone) is `t` modules wide. Proportions follow `t`, so a frame
 * looks the same on a short URL and on a 1,000-character text. `box`/`rounded_box`: a border with the text in a band
 * below the code; `banner_bottom`/`banner_top`: a banner under or over the code. The frame never enters the quiet zone.
 */
export function frameLayout(t: number, frame: Frame): FrameLayout | null {
  if (frame.style === 'none') return null;
  const text = frame.text ?? DEFAULT_FRAME_TEXT;
  const border = t * 0.04;
  const bandH = t * 0.18;
  if (frame.style === 'box' || frame.style === 'rounded_box') {
    const canvas = { x: -border, y: -border, w: t + 2 * border, h: t + bandH + 2 * border };
    const r = frame.style === 'rounded_box' ? t * 0.07 : 0;
    const shape = roundRect(canvas.x, canvas.y, canvas.w, canvas.h, r) + roundRect(0, 0, t, t, r / 2, true);
    return { canvas, shape, text: textPath(text, { x: 0, y: t, w: t, h: bandH + border }) };
  }
  const gap = t * 0.03;
  const radius = t * 0.04;
  if (frame.style === 'banner_bottom') {
    const band = { x: 0, y: t + gap, w: t, h: bandH };
    return { canvas: { x: 0, y: 0, w: t, h: t + gap + bandH }, shape: roundRect(band.x, band.y, band.w, band.h, radius), text: textPath(text, band) };
  }
  const band = { x: 0, y: -(gap + bandH), w: t, h: bandH };
  return { canvas: { x: 0, y: band.y, w: t, h: t + gap + bandH }, shape: roundRect(band.x, band.y, band.w, band.h, radius), text: textPath(text, band) };
}
