import { LRUCache } from 'lru-cache';
import type { BodyShape, EyeBallShape, EyeFrameShape } from './design';

/**
 * Anti-aliased coverage masks ("stamps") of the shapes a code is made of — one module of each body shape and corner
 * variant, an eye frame, an eye ball — for the raster renderer (qr-raster.ts). A stamp covers a block of whole modules
 * whose pixel edges are given (modules are snapped to whole pixels, as in the rest of the raster renderer), and is
 * stored as runs per row: painting it is a few buffer fills per row, not a loop over pixels. Stamps depend only on the
 * shape and the pixel widths of its modules, so a batch at one size computes each once (LRU below).
 *
 * Coverage comes from signed distances (negative inside, in pixels): clamp(0.5 − d, 0, 1). Blocks of 8 × 8 pixels
 * whose centre is farther than 8 px from any edge are filled or skipped whole, so a 4,000 px eye costs a few
 * thousand distance evaluations, not 700,000.
 */
export interface Stamp {
  w: number;
  h: number;
  /** triples (x0, x1, coverage 1..255), x1 exclusive; row y's triples are rowStart[y]..rowStart[y+1] (in triples) */
  runs: Int32Array;
  rowStart: Int32Array;
}

/** Signed distance in module units from the point (u, v) (module coordinates of the stamp) to a shape. */
type Sdf = (u: number, v: number) => number;

/** Rounded box [x0, x1] × [y0, y1] with per-corner radii (top-left, top-right, bottom-right, bottom-left; y down). */
function roundedBox(x0: number, y0: number, x1: number, y1: number, tl: number, tr: number, br: number, bl: number): Sdf {
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const bx = (x1 - x0) / 2;
  const by = (y1 - y0) / 2;
  return (u, v) => {
    const dx = u - cx;
    const dy = v - cy;
    const r = dx > 0 ? (dy > 0 ? br : tr) : dy > 0 ? bl : tl;
    const qx = Math.abs(dx) - bx + r;
    const qy = Math.abs(dy) - by + r;
    const ox = qx > 0 ? qx : 0;
    const oy = qy > 0 ? qy : 0;
    return Math.sqrt(ox * ox + oy * oy) + Math.min(Math.max(qx, qy), 0) - r;
  };
}

const circle = (cx: number, cy: number, r: number): Sdf => roundedBox(cx - r, cy - r, cx + r, cy + r, r, r, r, r);
/** `outer` without `inner` (inner lies inside outer). */
const ring = (outer: Sdf, inner: Sdf): Sdf => (u, v) => Math.max(outer(u, v), -inner(u, v));

/** Maps each pixel of a run of modules to its module coordinate (pixel centres) and pixels per module there. */
function axis(edges: ArrayLike<number>): { coord: Float64Array; scale: Float64Array } {
  const m = edges.length - 1;
  const len = edges[m] - edges[0];
  const coord = new Float64Array(len);
  const scale = new Float64Array(len);
  for (let j = 0; j < m; j++) {
    const a = edges[j] - edges[0];
    const b = edges[j + 1] - edges[0];
    const w = b - a;
    for (let p = a; p < b; p++) {
      coord[p] = j + (p + 0.5 - a) / w;
      scale[p] = w;
    }
  }
  return { coord, scale };
}

const BLOCK = 8;

function buildStamp(xEdges: ArrayLike<number>, yEdges: ArrayLike<number>, sdf: Sdf): Stamp {
  const X = axis(xEdges);
  const Y = axis(yEdges);
  const w = X.coord.length;
  const h = Y.coord.length;
  const cov = new Uint8Array(w * h);
  const dist = (px: number, py: number) => sdf(X.coord[px], Y.coord[py]) * ((X.scale[px] + Y.scale[py]) / 2);
  for (let by = 0; by < h; by += BLOCK) {
    const ey = Math.min(h, by + BLOCK);
    for (let bx = 0; bx < w; bx += BLOCK) {
      const ex = Math.min(w, bx + BLOCK);
      const d = dist((bx + ex - 1) >> 1, (by + ey - 1) >> 1);
      if (d > BLOCK) continue;
      if (d < -BLOCK) {
        for (let y = by; y < ey; y++) cov.fill(255, y * w + bx, y * w + ex);
        continue;
      }
      for (let y = by; y < ey; y++) {
        for (let x = bx; x < ex; x++) {
          const c = 0.5 - dist(x, y);
          cov[y * w + x] = c >= 1 ? 255 : c <= 0 ? 0 : Math.round(c * 255);
        }
      }
    }
  }
  const runs: number[] = [];
  const rowStart = new Int32Array(h + 1);
  for (let y = 0; y < h; y++) {
    rowStart[y] = runs.length / 3;
    let x = 0;
    while (x < w) {
      const c = cov[y * w + x];
      let e = x + 1;
      while (e < w && cov[y * w + e] === c) e++;
      if (c !== 0) runs.push(x, e, c);
      x = e;
    }
  }
  rowStart[h] = runs.length / 3;
  return { w, h, runs: Int32Array.from(runs), rowStart };
}

/** Stamps by shape and pixel widths; about 2 KB each at 1,000 px, tens of KB at 4,000 px. */
const stamps = new LRUCache<string, Stamp>({ max: 512 });

function cached(key: string, xEdges: ArrayLike<number>, yEdges: ArrayLike<number>, sdf: () => Sdf): Stamp {
  let stamp = stamps.get(key);
  if (!stamp) stamps.set(key, (stamp = buildStamp(xEdges, yEdges, sdf())));
  return stamp;
}

const widths = (edges: ArrayLike<number>): string => {
  const out: number[] = [];
  for (let i = 1; i < edges.length; i++) out.push(edges[i] - edges[i - 1]);
  return out.join(',');
};

/** One body module `w` × `h` pixels; `corners` has bit 1 top-left, 2 top-right, 4 bottom-right, 8 bottom-left set for
 * each outer corner (no dark neighbour on either side), which the rounded shapes round. The geometry is qr-svg.ts's. */
export function moduleStamp(shape: BodyShape, corners: number, w: number, h: number): Stamp {
  const bits = shape === 'square' || shape === 'dots' ? 0 : corners;
  return cached(`m:${shape}:${bits}:${w}x${h}`, [0, w], [0, h], () => {
    if (shape === 'dots') return circle(0.5, 0.5, 0.45);
    if (shape === 'square') return roundedBox(0, 0, 1, 1, 0, 0, 0, 0);
    const r = shape === 'rounded' ? 0.3 : 0.5;
    if (shape === 'classy') return roundedBox(0, 0, 1, 1, bits & 1 ? 0.5 : 0, 0, bits & 4 ? 0.5 : 0, 0);
    return roundedBox(0, 0, 1, 1, bits & 1 ? r : 0, bits & 2 ? r : 0, bits & 4 ? r : 0, bits & 8 ? r : 0);
  });
}

/** An eye's 7 × 7 ring; `xEdges`/`yEdges` are its 8 module edges in pixels. */
export function eyeFrameStamp(shape: EyeFrameShape, xEdges: ArrayLike<number>, yEdges: ArrayLike<number>): Stamp {
  return cached(`f:${shape}:${widths(xEdges)}:${widths(yEdges)}`, xEdges, yEdges, () => {
    if (shape === 'circle') return ring(circle(3.5, 3.5, 3.5), circle(3.5, 3.5, 2.5));
    if (shape === 'rounded') return ring(roundedBox(0, 0, 7, 7, 2, 2, 2, 2), roundedBox(1, 1, 6, 6, 1, 1, 1, 1));
    return ring(roundedBox(0, 0, 7, 7, 0, 0, 0, 0), roundedBox(1, 1, 6, 6, 0, 0, 0, 0));
  });
}

/** An eye's 3 × 3 ball, over the same 7 × 7 block as its frame. */
export function eyeBallStamp(shape: EyeBallShape, frame: EyeFrameShape, xEdges: ArrayLike<number>, yEdges: ArrayLike<number>): Stamp {
  return cached(`b:${shape}:${frame}:${widths(xEdges)}:${widths(yEdges)}`, xEdges, yEdges, () => {
    if (shape === 'circle') return circle(3.5, 3.5, 1.5);
    const r = shape === 'rounded' ? 0.9 : frame === 'circle' ? 0.5 : 0;
    return roundedBox(2, 2, 5, 5, r, r, r, r);
  });
}
