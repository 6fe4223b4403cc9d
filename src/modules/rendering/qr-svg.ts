import QRCode from 'qrcode';
import { ApiException } from '../../common/errors/api.exception';
import { type BodyShape, type Design, type ErrorCorrection, type EyeBallShape, type EyeFrameShape, frameColors } from './design';
import { frameLayout, type FrameLayout, type Rect } from './frame';

/** Pure drawing: payload + design (+ an embedded logo) → an SVG document. No I/O here. */

/** Light modules around the symbol, as the QR standard asks. */
export const QUIET_ZONE = 4;
/** Below this many pixels per module (quiet zone included) a PNG is refused rather than rendered unreadable. */
export const MIN_PX_PER_MODULE = 2.5;
/** Round eye frames blur into their gap sooner: at 2.5 px per module zxing misses them, so they need 3. */
export const MIN_PX_PER_MODULE_CIRCLE_EYES = 3;

export function minPixelsPerModule(design: Design): number {
  return design.shapes.eye_frame === 'circle' ? MIN_PX_PER_MODULE_CIRCLE_EYES : MIN_PX_PER_MODULE;
}
/** Logo width as a fraction of the symbol's width (quiet zone excluded), by error correction level. The cap is 30 %. */
export const LOGO_WIDTH_FRACTION: Record<ErrorCorrection, number> = { H: 0.22, Q: 0.2, M: 0.16, L: 0.12 };
/** Cleared margin around the logo, in modules. */
const LOGO_MARGIN = 0.5;

export interface Matrix {
  size: number;
  /** 1 = dark, row-major */
  data: Uint8Array;
  version: number;
}

/** Encodes the payload; a payload over the capacity of version 40 at this level is 400 `payload_too_large`. */
export function encodeMatrix(payload: string, errorCorrection: ErrorCorrection): Matrix {
  if (typeof payload !== 'string' || payload.length === 0) {
    throw new ApiException('invalid_request', 'The code has no content to encode');
  }
  try {
    const qr = QRCode.create(payload, { errorCorrectionLevel: errorCorrection });
    return { size: qr.modules.size, data: qr.modules.data, version: qr.version };
  } catch (err) {
    const message = (err as Error).message ?? '';
    if (/too big|cannot contain/i.test(message)) {
      throw new ApiException(
        'payload_too_large',
        `The content is too long for a QR code at error correction ${errorCorrection}: shorten it or choose a lower error correction level`,
      );
    }
    throw err;
  }
}

/** Total modules across the image (symbol + two quiet zones). */
export function imageModules(matrix: Matrix): number {
  return matrix.size + 2 * QUIET_ZONE;
}

/** The frame around the symbol, when the design has one. */
export function layoutFrame(m: Matrix, design: Design): FrameLayout | null {
  return design.frame ? frameLayout(imageModules(m), design.frame) : null;
}

/** The whole image in module units: the symbol with its quiet zone, plus the frame when there is one. */
export function imageCanvas(m: Matrix, design: Design, layout: FrameLayout | null = layoutFrame(m, design)): Rect {
  const total = imageModules(m);
  return layout ? layout.canvas : { x: 0, y: 0, w: total, h: total };
}

/** Pixel dimensions of an image whose longest side is `size` (framed images are taller than wide). */
export function pixelSize(canvas: Rect, size: number): { width: number; height: number } {
  return canvas.h > canvas.w ? { width: Math.round((size * canvas.w) / canvas.h), height: size } : { width: size, height: Math.round((size * canvas.h) / canvas.w) };
}

/** The image's longest side in modules: what `size` pixels are spread over. */
export function longestSide(canvas: Rect): number {
  return Math.max(canvas.w, canvas.h);
}

const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000));

/** A rectangle with per-corner radii (tl, tr, br, bl), clockwise. */
function roundedRect(x: number, y: number, w: number, h: number, tl: number, tr: number, br: number, bl: number): string {
  let d = `M${fmt(x + tl)} ${fmt(y)}H${fmt(x + w - tr)}`;
  if (tr) d += `A${fmt(tr)} ${fmt(tr)} 0 0 1 ${fmt(x + w)} ${fmt(y + tr)}`;
  d += `V${fmt(y + h - br)}`;
  if (br) d += `A${fmt(br)} ${fmt(br)} 0 0 1 ${fmt(x + w - br)} ${fmt(y + h)}`;
  d += `H${fmt(x + bl)}`;
  if (bl) d += `A${fmt(bl)} ${fmt(bl)} 0 0 1 ${fmt(x)} ${fmt(y + h - bl)}`;
  d += `V${fmt(y + tl)}`;
  if (tl) d += `A${fmt(tl)} ${fmt(tl)} 0 0 1 ${fmt(x + tl)} ${fmt(y)}`;
  return `${d}Z`;
}

/** Same outline, counter-clockwise: used for holes so nonzero and evenodd fills agree. */
function roundedRectCcw(x: number, y: number, w: number, h: number, r: number): string {
  let d = `M${fmt(x + r)} ${fmt(y)}`;
  if (r) d += `A${fmt(r)} ${fmt(r)} 0 0 0 ${fmt(x)} ${fmt(y + r)}`;
  d += `V${fmt(y + h - r)}`;
  if (r) d += `A${fmt(r)} ${fmt(r)} 0 0 0 ${fmt(x + r)} ${fmt(y + h)}`;
  d += `H${fmt(x + w - r)}`;
  if (r) d += `A${fmt(r)} ${fmt(r)} 0 0 0 ${fmt(x + w)} ${fmt(y + h - r)}`;
  d += `V${fmt(y + r)}`;
  if (r) d += `A${fmt(r)} ${fmt(r)} 0 0 0 ${fmt(x + w - r)} ${fmt(y)}`;
  return `${d}Z`;
}

function circle(cx: number, cy: number, r: number, ccw = false): string {
  const s = ccw ? 0 : 1;
  return `M${fmt(cx - r)} ${fmt(cy)}A${fmt(r)} ${fmt(r)} 0 1 ${s} ${fmt(cx + r)} ${fmt(cy)}A${fmt(r)} ${fmt(r)} 0 1 ${s} ${fmt(cx - r)} ${fmt(cy)}Z`;
}

/** True for the 7×7 finder patterns (drawn separately as eyes). */
function inFinder(r: number, c: number, n: number): boolean {
  return (r < 7 && c < 7) || (r < 7 && c >= n - 7) || (r >= n - 7 && c < 7);
}

/** Relative path fragments for one module, indexed by which corners are exposed (bit 1 = top-left, 2 = top-right,
 * 4 = bottom-right, 8 = bottom-left), drawn from the module's top-left corner. Built once per shape: the body of a
 * large code has thousands of modules, and string building is most of the cost. */
const CELL_CACHE = new Map<BodyShape, string[]>();

function cellPaths(shape: BodyShape): string[] {
  const cached = CELL_CACHE.get(shape);
  if (cached) return cached;
  let cells: string[];
  if (shape === 'dots') {
    // Dots fill most of the module (radius 0.45): smaller dots lose contrast at small sizes. Split around the y
    // coordinate: `M${x}` + cells[0] + `${y}` + cells[1].
    cells = ['.05 ', '.5a.45 .45 0 1 0 .9 0a.45 .45 0 1 0-.9 0Z'];
  } else {
    const rad = shape === 'rounded' ? 0.3 : 0.5;
    cells = [];
    for (let bits = 0; bits < 16; bits++) {
      let tl = bits & 1 ? rad : 0;
      let tr = bits & 2 ? rad : 0;
      let br = bits & 4 ? rad : 0;
      let bl = bits & 8 ? rad : 0;
      if (shape === 'classy') {
        // A leaf: only the top-left and bottom-right corners curve.
        tl = bits & 1 ? 0.5 : 0;
        br = bits & 4 ? 0.5 : 0;
        tr = 0;
        bl = 0;
      }
      if (shape === 'square' || !(tl || tr || br || bl)) {
        cells.push('h1v1h-1Z');
        continue;
      }
      let d = tl ? `m${fmt(tl)} 0` : '';
      d += `h${fmt(1 - tl - tr)}`;
      if (tr) d += `a${fmt(tr)} ${fmt(tr)} 0 0 1 ${fmt(tr)} ${fmt(tr)}`;
      d += `v${fmt(1 - tr - br)}`;
      if (br) d += `a${fmt(br)} ${fmt(br)} 0 0 1 ${fmt(-br)} ${fmt(br)}`;
      d += `h${fmt(-(1 - br - bl))}`;
      if (bl) d += `a${fmt(bl)} ${fmt(bl)} 0 0 1 ${fmt(-bl)} ${fmt(-bl)}`;
      d += `v${fmt(-(1 - bl - tl))}`;
      if (tl) d += `a${fmt(tl)} ${fmt(tl)} 0 0 1 ${fmt(tl)} ${fmt(-tl)}`;
      cells.push(`${d}Z`);
    }
  }
  CELL_CACHE.set(shape, cells);
  return cells;
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The body: every dark module outside the finder patterns (and outside the cleared logo area). */
function bodyPath(m: Matrix, shape: BodyShape, cleared: Box | null): string {
  const n = m.size;
  const q = QUIET_ZONE;
  const isCleared = (r: number, c: number): boolean =>
    cleared !== null && c + 1 > cleared.x0 && c < cleared.x1 && r + 1 > cleared.y0 && r < cleared.y1;
  // Dark body modules, computed once: the shapes look at each module's neighbours.
  const mask = new Uint8Array(n * n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (m.data[r * n + c] === 1 && !inFinder(r, c, n) && !isCleared(r, c)) mask[r * n + c] = 1;
    }
  }
  const dark = (r: number, c: number): boolean => r >= 0 && c >= 0 && r < n && c < n && mask[r * n + c] === 1;
  const parts: string[] = [];

  if (shape === 'square') {
    // One rectangle per horizontal run keeps the path short.
    for (let r = 0; r < n; r++) {
      let c = 0;
      while (c < n) {
        if (!dark(r, c)) {
          c++;
          continue;
        }
        const start = c;
        while (c < n && dark(r, c)) c++;
        parts.push(`M${start + q} ${r + q}h${c - start}v1h${start - c}Z`);
      }
    }
    return parts.join('');
  }

  const cells = cellPaths(shape);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (!dark(r, c)) continue;
      const x = c + q;
      const y = r + q;
      if (shape === 'dots') {
        parts.push(`M${x}${cells[0]}${y}${cells[1]}`);
        continue;
      }
      // Round only outer corners, where neither neighbour of that corner is dark.
      const top = dark(r - 1, c);
      const bottom = dark(r + 1, c);
      const left = dark(r, c - 1);
      const right = dark(r, c + 1);
      const corners = (!top && !left ? 1 : 0) | (!top && !right ? 2 : 0) | (!bottom && !right ? 4 : 0) | (!bottom && !left ? 8 : 0);
      parts.push(`M${x} ${y}${cells[corners]}`);
    }
  }
  return parts.join('');
}

function eyeFramePath(x: number, y: number, shape: EyeFrameShape): string {
  if (shape === 'circle') return circle(x + 3.5, y + 3.5, 3.5) + circle(x + 3.5, y + 3.5, 2.5, true);
  if (shape === 'rounded') return roundedRect(x, y, 7, 7, 2, 2, 2, 2) + roundedRectCcw(x + 1, y + 1, 5, 5, 1);
  return `M${x} ${y}h7v7h-7Z` + `M${x + 1} ${y + 1}v5h5v-5Z`;
}

function eyeBallPath(x: number, y: number, shape: EyeBallShape, frame?: EyeFrameShape): string {
  if (shape === 'circle') return circle(x + 1.5, y + 1.5, 1.5);
  // In a round frame, a sharp square's corners come within 0.4 module of the ring along the diagonal and zxing no
  // longer sees a finder pattern there: soften the corners just enough to keep a clear gap.
  if (frame === 'circle' && shape === 'square') return roundedRect(x, y, 3, 3, 0.5, 0.5, 0.5, 0.5);
  if (shape === 'rounded') return roundedRect(x, y, 3, 3, 0.9, 0.9, 0.9, 0.9);
  return `M${x} ${y}h3v3h-3Z`;
}

export interface LogoImage {
  /** data: URI of a PNG */
  dataUri: string;
  width: number;
  height: number;
}

export interface SvgOptions {
  /** width/height attributes in pixels (the drawing scales with its viewBox) */
  size?: number;
  logo?: LogoImage | null;
}

/** The logo's box in module units, centered on the symbol (quiet zone excluded from the width). */
function logoBox(m: Matrix, ec: ErrorCorrection, logo: LogoImage): Box {
  const maxSide = m.size * LOGO_WIDTH_FRACTION[ec];
  const scale = maxSide / Math.max(logo.width, logo.height);
  const w = logo.width * scale;
  const h = logo.height * scale;
  const cx = QUIET_ZONE + m.size / 2;
  return { x0: cx - w / 2, y0: cx - h / 2, x1: cx + w / 2, y1: cx + h / 2 };
}

/** A paint: a colour, or null for the design's gradient. */
export type Paint = string | null;

export interface SceneGradient {
  type: 'linear' | 'radial';
  start: string;
  end: string;
  /** linear: from (x1, y1) to (x2, y2); radial: centre (x1, y1), radius r (module units) */
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  r: number;
}

export interface SceneLayer {
  d: string;
  paint: Paint;
  evenOdd: boolean;
}

/**
 * What an image of a code is made of, in module units, in painting order: SVG, PDF and the raster renderer all draw
 * from it, so the formats cannot drift apart.
 */
export interface Scene {
  matrix: Matrix;
  design: Design;
  canvas: Rect;
  /** symbol + quiet zone, in modules */
  total: number;
  framed: boolean;
  /** null: transparent */
  background: string | null;
  gradient: SceneGradient | null;
  layers: SceneLayer[];
  /** the body layer's index in `layers` (the raster renderer draws the body from the matrix itself) */
  bodyLayer: number;
  /** cleared logo area (module units, quiet zone excluded), or null */
  cleared: Box | null;
  logo: { image: LogoImage; box: Box } | null;
}

export function buildScene(m: Matrix, design: Design, logoImage: LogoImage | null = null): Scene {
  const total = imageModules(m);
  const n = m.size;
  const q = QUIET_ZONE;
  const layout = layoutFrame(m, design);
  const canvas = imageCanvas(m, design, layout);
  let gradient: SceneGradient | null = null;
  if (design.gradient) {
    const g = design.gradient;
    gradient =
      g.type === 'radial'
        ? { type: 'radial', start: g.start, end: g.end, x1: q + n / 2, y1: q + n / 2, x2: 0, y2: 0, r: (n / 2) * Math.SQRT2 }
        : { type: 'linear', start: g.start, end: g.end, x1: q, y1: q, x2: q + n, y2: q + n, r: 0 };
  }
  const fill: Paint = gradient ? null : design.colors.foreground;
  const layers: SceneLayer[] = [];
  if (layout) {
    const colors = frameColors(design);
    layers.push({ d: layout.shape, paint: colors.color, evenOdd: true });
    layers.push({ d: layout.text, paint: colors.text_color, evenOdd: false });
  }
  const logo = design.logo ? logoImage : null;
  const box = logo ? logoBox(m, design.error_correction, logo) : null;
  const cleared =
    box && design.logo?.clear_background
      ? { x0: box.x0 - q - LOGO_MARGIN, y0: box.y0 - q - LOGO_MARGIN, x1: box.x1 - q + LOGO_MARGIN, y1: box.y1 - q + LOGO_MARGIN }
      : null;
  const bodyLayer = layers.length;
  layers.push({ d: bodyPath(m, design.shapes.body, cleared), paint: fill, evenOdd: false });
  const eyes: Array<[number, number]> = [
    [q, q],
    [q + n - 7, q],
    [q, q + n - 7],
  ];
  const frames = eyes.map(([x, y]) => eyeFramePath(x, y, design.shapes.eye_frame)).join('');
  const balls = eyes.map(([x, y]) => eyeBallPath(x + 2, y + 2, design.shapes.eye_ball, design.shapes.eye_frame)).join('');
  layers.push({ d: frames, paint: design.eye_colors?.frame ?? fill, evenOdd: true });
  layers.push({ d: balls, paint: design.eye_colors?.ball ?? fill, evenOdd: false });
  return {
    matrix: m,
    design,
    canvas,
    total,
    framed: layout !== null,
    background: design.transparent_background ? null : design.colors.background,
    gradient,
    layers,
    bodyLayer,
    cleared,
    logo: logo && box ? { image: logo, box } : null,
  };
}

export function drawSvg(m: Matrix, design: Design, opts: SvgOptions = {}): string {
  return sceneToSvg(buildScene(m, design, opts.logo ?? null), opts.size ?? 1000);
}

/** The scene as an SVG document `px` pixels wide. */
export function sceneToSvg(scene: Scene, px: number): string {
  const { canvas, total, gradient } = scene;
  const out: string[] = [];
  const { width, height } = pixelSize(canvas, px);
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" viewBox="${fmt(canvas.x)} ${fmt(canvas.y)} ${fmt(canvas.w)} ${fmt(canvas.h)}" width="${width}" height="${height}">`,
  );
  if (gradient) {
    const stops = `<stop offset="0" stop-color="${gradient.start}"/><stop offset="1" stop-color="${gradient.end}"/>`;
    if (gradient.type === 'radial') {
      out.push(
        `<defs><radialGradient id="fg" gradientUnits="userSpaceOnUse" cx="${fmt(gradient.x1)}" cy="${fmt(gradient.y1)}" r="${fmt(gradient.r)}">${stops}</radialGradient></defs>`,
      );
    } else {
      out.push(
        `<defs><linearGradient id="fg" gradientUnits="userSpaceOnUse" x1="${gradient.x1}" y1="${gradient.y1}" x2="${gradient.x2}" y2="${gradient.y2}">${stops}</linearGradient></defs>`,
      );
    }
  }
  if (scene.background) {
    if (scene.framed) out.push(`<rect x="${fmt(canvas.x)}" y="${fmt(canvas.y)}" width="${fmt(canvas.w)}" height="${fmt(canvas.h)}" fill="${scene.background}"/>`);
    out.push(`<rect width="${total}" height="${total}" fill="${scene.background}"/>`);
  }
  for (const layer of scene.layers) {
    out.push(`<path fill="${layer.paint ?? 'url(#fg)'}"${layer.evenOdd ? ' fill-rule="evenodd"' : ''} d="${layer.d}"/>`);
  }
  const logo = scene.logo;
  if (logo) {
    const box = logo.box;
    out.push(
      `<image x="${fmt(box.x0)}" y="${fmt(box.y0)}" width="${fmt(box.x1 - box.x0)}" height="${fmt(box.y1 - box.y0)}" preserveAspectRatio="xMidYMid meet" xlink:href="${logo.image.dataUri}"/>`,
    );
  }
  out.push('</svg>');
  return out.join('');
}
