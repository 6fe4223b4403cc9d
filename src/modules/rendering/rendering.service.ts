import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import sharp from 'sharp';
import type { Agent } from 'undici';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { createSafeAgent } from '../../common/http/safe-fetch';
import type { Design } from './design';
import { fetchLogo, normalizeLogo, pngSize } from './logo';
import { drawSvg, encodeMatrix, imageModules, LogoImage, minPixelsPerModule } from './qr-svg';
import { contentKey, IMAGE_STORAGE, ImageStorage } from './storage/image-storage';

export const PNG_MIN_SIZE = 100;
export const PNG_MAX_SIZE = 4000;
const LOGO_CACHE_ENTRIES = 64;
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

@Injectable()
export class RenderingService implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly logos = new Map<string, LogoImage>();
  private readonly pngSlots = new Slots(PNG_CONCURRENCY);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(IMAGE_STORAGE) private readonly storage: ImageStorage,
  ) {
    this.agent = createSafeAgent({ allowHosts: config.logoAllowHosts });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  /** 400 `payload_too_large` when the payload does not fit a QR code at the design's error correction. */
  assertFits(payload: string, design: Design): void {
    encodeMatrix(payload, design.error_correction);
  }

  /** Fetches the logo once, checks and normalizes it, stores it; returns its storage key (a PNG). */
  async prepareLogo(url: string): Promise<string> {
    const raw = await fetchLogo(this.agent, url, this.config.logoAllowHosts);
    const png = await normalizeLogo(raw);
    const key = contentKey(png, 'png');
    await this.storage.put(key, png, 'image/png');
    return key;
  }

  /** The SVG document (with the logo embedded as a PNG data URI). `size` sets its width/height attributes. */
  async renderSvg(payload: string, design: Design, logoKey: string | null, size = 1000): Promise<string> {
    const matrix = encodeMatrix(payload, design.error_correction);
    const logo = design.logo && logoKey ? await this.loadLogo(logoKey) : null;
    return drawSvg(matrix, design, { size, logo });
  }

  /** A square PNG of `size` pixels; 400 on `size` outside 100..4000 or too small for the code to stay readable. */
  async renderPng(payload: string, design: Design, logoKey: string | null, size: number): Promise<Buffer> {
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
    const logo = design.logo && logoKey ? await this.loadLogo(logoKey) : null;
    const svg = drawSvg(matrix, design, { size, logo });
    // A 4000 px rasterization holds a few hundred MB for a moment: at most PNG_CONCURRENCY run at once per process.
    return this.pngSlots.run(() => {
      const image = sharp(Buffer.from(svg), { density: 72 });
      return (design.transparent_background ? image : image.removeAlpha()).png({ compressionLevel: 6 }).toBuffer();
    });
  }

  /** Stores an SVG under its content hash; returns the key. */
  async storeSvg(svg: string): Promise<string> {
    const key = contentKey(svg, 'svg');
    await this.storage.put(key, Buffer.from(svg), 'image/svg+xml');
    return key;
  }

  imageUrl(key: string): string {
    return this.storage.url(key);
  }

  async deleteObject(key: string): Promise<void> {
    await this.storage.delete(key);
  }

  private async loadLogo(key: string): Promise<LogoImage | null> {
    const cached = this.logos.get(key);
    if (cached) return cached;
    const stored = await this.storage.get(key);
    if (!stored) return null;
    const { width, height } = pngSize(stored.bytes);
    const logo: LogoImage = { dataUri: `data:image/png;base64,${stored.bytes.toString('base64')}`, width, height };
    if (this.logos.size >= LOGO_CACHE_ENTRIES) this.logos.delete(this.logos.keys().next().value as string);
    this.logos.set(key, logo);
    return logo;
  }
}
