import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import sharp from 'sharp';
import { contrastRatio } from './color';
import { type Design, effectiveBackground } from './design';
import { buildScene, imageModules, type LogoImage, type Matrix } from './qr-svg';

/** `POST /v1/qr-codes/preview?check=true`: how likely a design is to scan once printed (docs/design.md#preview). */

/** Printed modules smaller than this are at the edge of what phone cameras resolve at arm's length. */
export const MIN_MODULE_MM = 0.4;
/** Below this contrast (still above the 3:1 floor) cheap cameras in poor light start to miss modules. */
const COMFORTABLE_CONTRAST = 4.5;
/** Versions above this are dense: fine at poster size, hard on a business card. */
const DENSE_MODULES = 57; // version 10

export interface ScanWarning {
  code: string;
  message: string;
}

export interface ScannabilityReport {
  decodes: boolean;
  contrast_ratio: number;
  logo_coverage: number;
  modules: number;
  min_print_mm: number;
  warnings: ScanWarning[];
}

type ZxingReader = typeof import('zxing-wasm/reader');
let zxing: Promise<ZxingReader> | null = null;

/** zxing-cpp (WebAssembly), an independent implementation of the QR standard: not the encoder that drew the code. */
function reader(): Promise<ZxingReader> {
  zxing ??= (async () => {
    const req = createRequire(__filename);
    const mod = req('zxing-wasm/reader') as ZxingReader;
    const wasm = readFileSync(join(req.resolve('zxing-wasm/reader'), '../../../reader/zxing_reader.wasm'));
    // Hand it the bundled wasm: otherwise it would fetch it from a CDN.
    await mod.prepareZXingModule({
      overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
      fireImmediately: true,
    });
    return mod;
  })();
  zxing.catch(() => (zxing = null));
  return zxing;
}

/** The text zxing-cpp reads from a raster image (flattened onto white, as printed), or null. */
export async function decodeImage(image: Buffer): Promise<string | null> {
  const raw = await sharp(image).flatten({ background: '#ffffff' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const data = new Uint8ClampedArray(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength);
  const zx = await reader();
  const results = await zx.readBarcodes({ width: raw.info.width, height: raw.info.height, data, colorSpace: 'srgb' }, {
    formats: ['QRCode'],
    maxNumberOfSymbols: 1,
  });
  return results.find((r) => r.isValid)?.text ?? null;
}

/** The weakest contrast of any colour that paints dark modules against the background a scanner sees. */
function weakestContrast(design: Design): number {
  const bg = effectiveBackground(design);
  const darks = [design.colors.foreground];
  if (design.gradient) darks.push(design.gradient.start, design.gradient.end);
  if (design.eye_colors) darks.push(design.eye_colors.frame, design.eye_colors.ball);
  return Math.min(...darks.map((c) => contrastRatio(c, bg)));
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
/** A contrast as shown (2 decimals), rounded down as the design's refusal rounds it: 4.49995 shows as 4.49, so the figure
 * and the low_contrast warning (under 4.5) always agree. */
const shownContrast = (ratio: number) => Math.floor(ratio * 100) / 100;

/** The report, given whether the rendered image decoded back to its payload. */
export function scannabilityReport(matrix: Matrix, design: Design, logo: LogoImage | null, decodes: boolean): ScannabilityReport {
  const scene = buildScene(matrix, design, logo);
  const coverage = scene.logo ? (scene.logo.box.x1 - scene.logo.box.x0) / matrix.size : 0;
  const contrast = weakestContrast(design);
  const minPrintMm = round(imageModules(matrix) * MIN_MODULE_MM, 2);
  const warnings: ScanWarning[] = [];
  if (!decodes) warnings.push({ code: 'not_decoded', message: 'An independent decoder could not read the rendered image: change the design before printing' });
  if (contrast < COMFORTABLE_CONTRAST) {
    warnings.push({ code: 'low_contrast', message: `A contrast of ${shownContrast(contrast).toFixed(2)}:1 scans, but ${COMFORTABLE_CONTRAST}:1 or more reads faster in poor light` });
  }
  if (scene.logo && design.error_correction !== 'H') {
    warnings.push({ code: 'logo_error_correction', message: `A logo hides modules: error correction H recovers the most (this design uses ${design.error_correction})` });
  }
  if (scene.logo && !design.logo?.clear_background) {
    warnings.push({ code: 'logo_over_modules', message: 'The logo is drawn over the modules (clear_background is false): error correction has to make up for them' });
  }
  if (design.transparent_background) {
    warnings.push({ code: 'transparent_background', message: 'The background is transparent: print it on a light surface, it will not scan on a dark one' });
  }
  if (matrix.size > DENSE_MODULES) {
    warnings.push({ code: 'dense_code', message: `${matrix.size} modules across: print it at least ${minPrintMm} mm wide, or shorten the content` });
  }
  return { decodes, contrast_ratio: shownContrast(contrast), logo_coverage: round(coverage, 3), modules: matrix.size, min_print_mm: minPrintMm, warnings };
}
