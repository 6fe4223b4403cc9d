import { Injectable } from '@nestjs/common';
import sharp from 'sharp';
import { ApiException } from '../../common/errors/api.exception';
import type { Design } from './design';
import { logoImage } from './logo-image';
import { drawSvg, encodeMatrix, imageModules, minPixelsPerModule } from './qr-svg';

export const PNG_MIN_SIZE = 100;
export const PNG_MAX_SIZE = 4000;
const PNG_CONCURRENCY = 2;

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

  /** A square PNG of `size` pixels; 400 on `size` outside 100..4000 or too small for the code to stay readable. */
  async renderPng(payload: string, design: Design, logo: Buffer | null, size: number): Promise<Buffer> {
    if (!Number.isInteger(size) || size < PNG_MIN_SIZE || size > PNG_MAX_SIZE) {
      throw ApiException.invalid('size', `size must be an integer from ${PNG_MIN_SIZE} to ${PNG_MAX_SIZE}`);
    }
    const matrix = encodeMatrix(payload, design.error_correction);
    const modules = imageModules(matrix);
    const minPx = minPixelsPerModule(design);
    if (size / modules < minPx) {
      const minSize = Math.ceil(modules * minPx);
      throw ApiException.invalid(
        'size',
        `size ${size} leaves ${(Math.floor((size / modules) * 100) / 100).toFixed(2)} px per module for this code (${modules} modules with the quiet zone); ` +
          `it needs at least ${minPx} px per module to scan: use size ${minSize} or more`,
      );
    }
    const svg = drawSvg(matrix, design, { size, logo: design.logo && logo ? logoImage(logo) : null });
    // A 4000 px rasterization holds a few hundred MB for a moment: at most PNG_CONCURRENCY run at once per process.
    return this.pngSlots.run(() => {
      const image = sharp(Buffer.from(svg), { density: 72 });
      return (design.transparent_background ? image : image.removeAlpha()).png({ compressionLevel: 6 }).toBuffer();
    });
  }
}
