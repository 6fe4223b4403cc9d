import { Injectable } from '@nestjs/common';
import { ApiException } from '../../common/errors/api.exception';
import type { Design } from './design';
import { logoImage } from './logo-image';
import { type ScannabilityReport, scannabilityReport } from './scannability';
import { drawRaster } from './qr-raster';
import { PRINT_MM_MAX, PRINT_MM_MIN, sceneToPdf } from './qr-pdf';
import { buildScene, drawSvg, encodeMatrix, imageCanvas, longestSide, minPixelsPerModule, type Matrix } from './qr-svg';

/** Download formats: SVG and PDF are vectors, PNG and WebP rasters of `size` pixels wide. */
export type ImageFormat = 'svg' | 'png' | 'webp' | 'pdf';
export const IMAGE_FORMATS: readonly ImageFormat[] = ['svg', 'png', 'webp', 'pdf'];
export const CONTENT_TYPES: Record<ImageFormat, string> = { svg: 'image/svg+xml', png: 'image/png', webp: 'image/webp', pdf: 'application/pdf' };
export type RasterFormat = 'png' | 'webp';

export const PNG_MIN_SIZE = 100;
export const PNG_MAX_SIZE = 4000;
/** Rasters drawn at once per process (a 4,000 px one is a 16–64 MB buffer plus the encoder's). */
export const PNG_CONCURRENCY = 2;

/** A counting semaphore: at most `size` tasks run at once, the rest wait in order. */
class Slots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A finishing task hands its slot straight to the next waiter, so the count never overshoots.
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/**
 * Encodes, draws and rasterizes. Pure: a logo comes in as PNG bytes (the images module fetches, normalizes and stores
 * logos); nothing here touches storage, the network, the database or Redis.
 */
@Injectable()
export class RenderingService {
  private readonly pngSlots = new Slots(PNG_CONCURRENCY);

  /** 400 `payload_too_large` when the payload does not fit a QR code at the design's error correction. */
  assertFits(payload: string, design: Design): void {
    encodeMatrix(payload, design.error_correction);
  }

  /** The SVG document (with the logo embedded as a PNG data URI). `size` sets its width/height attributes. */
  async renderSvg(payload: string, design: Design, logo: Buffer | null, size = 1000): Promise<string> {
    const matrix = encodeMatrix(payload, design.error_correction);
    return drawSvg(matrix, design, { size, logo: design.logo && logo ? logoImage(logo) : null });
  }

  /** How well the image scans (`decodes`: whether the rendered image read back to the payload). */
  scannability(payload: string, design: Design, logo: Buffer | null, decodes: boolean): ScannabilityReport {
    const matrix = encodeMatrix(payload, design.error_correction);
    return scannabilityReport(matrix, design, design.logo && logo ? logoImage(logo) : null, decodes);
  }

  /** A vector PDF whose symbol with its quiet zone is `printMm` wide (a frame adds to it); 400 on `print_mm` outside 10..1000. */
  async renderPdf(payload: string, design: Design, logo: Buffer | null, printMm: number): Promise<Buffer> {
    if (!Number.isFinite(printMm) || printMm < PRINT_MM_MIN || printMm > PRINT_MM_MAX) {
      throw ApiException.invalid('print_mm', `print_mm must be a number from ${PRINT_MM_MIN} to ${PRINT_MM_MAX} (millimetres)`);
    }
    const matrix = encodeMatrix(payload, design.error_correction);
    return sceneToPdf(buildScene(matrix, design, design.logo && logo ? logoImage(logo) : null), printMm);
  }

  /** A PNG whose longest side is `size` pixels (square unless a frame makes it taller); 400 on `size` outside 100..4000 or too small
   * for the code to stay readable. */
  renderPng(payload: string, design: Design, logo: Buffer | null, size: number): Promise<Buffer> {
    return this.renderRaster('png', payload, design, logo, size);
  }

  /** A lossless WebP, otherwise as renderPng. */
  renderWebp(payload: string, design: Design, logo: Buffer | null, size: number): Promise<Buffer> {
    return this.renderRaster('webp', payload, design, logo, size);
  }

  /** 400 on `size` when it leaves too few pixels per module; the matrix otherwise. */
  checkRasterSize(payload: string, design: Design, size: number): Matrix {
    if (!Number.isInteger(size) || size < PNG_MIN_SIZE || size > PNG_MAX_SIZE) {
      throw ApiException.invalid('size', `size must be an integer from ${PNG_MIN_SIZE} to ${PNG_MAX_SIZE}`);
    }
    const matrix = encodeMatrix(payload, design.error_correction);
    // `size` is the longest side: in a framed image the modules get the share the frame leaves them.
    const modules = longestSide(imageCanvas(matrix, design));
    const minPx = minPixelsPerModule(design);
    if (size / modules < minPx) {
      const minSize = Math.ceil(modules * minPx);
      const shown = Math.round(modules * 100) / 100;
      throw ApiException.invalid(
        'size',
        `size ${size} leaves ${(Math.floor((size / modules) * 100) / 100).toFixed(2)} px per module for this code (${shown} modules with the quiet zone${design.frame && design.frame.style !== 'none' ? ' and the frame' : ''}); ` +
          `it needs at least ${minPx} px per module to scan: use size ${minSize} or more`,
      );
    }
    return matrix;
  }

  async renderRaster(format: RasterFormat, payload: string, design: Design, logo: Buffer | null, size: number): Promise<Buffer> {
    const matrix = this.checkRasterSize(payload, design, size);
    const image = design.logo && logo ? logoImage(logo) : null;
    // Drawn straight into pixels (qr-raster.ts): no SVG, no librsvg. A 4000 px image is a 16–64 MB buffer plus the
    // encoder's: at most PNG_CONCURRENCY run at once per process.
    return this.pngSlots.run(() => drawRaster(matrix, design, image, image ? logo : null, size, format));
  }
}
