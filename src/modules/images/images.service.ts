import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import type { Agent } from 'undici';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { createSafeAgent } from '../../common/http/safe-fetch';
import { decodeDataLogo, fetchLogo, normalizeLogo } from './logo';
import { contentKey, IMAGE_STORAGE, ImageStorage, type StoredObject } from './storage/image-storage';

const LOGO_CACHE_ENTRIES = 64;

/**
 * Stored images: rendered SVGs and logos under content-hash keys, in the configured storage driver. Logos come in
 * through here (fetched once, SSRF-safe, sniffed and normalized to PNG); rendering gets their bytes from logo().
 */
@Injectable()
export class ImagesService implements OnModuleDestroy {
  private readonly agent: Agent;
  /** Stored logos by key: codes sharing a logo are drawn without a storage read each time. */
  private readonly logos = new Map<string, Buffer>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(IMAGE_STORAGE) private readonly storage: ImageStorage,
  ) {
    this.agent = createSafeAgent({ allowHosts: config.logoAllowHosts });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }

  /** Fetches the logo once, checks and normalizes it, stores it; returns its storage key (a PNG). `beforeStore` runs
   * once the key is known and before the object is written (the caller pins the key against concurrent deletes). */
  async prepareLogo(url: string, beforeStore?: (key: string) => Promise<void>): Promise<string> {
    const png = await this.loadLogo(url);
    const key = contentKey(png, 'png');
    await beforeStore?.(key);
    await this.storage.put(key, png, 'image/png');
    return key;
  }

  /** The logo at `url` (http(s), fetched SSRF-safe, or a `data:` URL) checked and normalized to a PNG, not stored. */
  async loadLogo(url: string): Promise<Buffer> {
    const raw = url.startsWith('data:') ? await decodeDataLogo(url) : await fetchLogo(this.agent, url, this.config.logoAllowHosts);
    return normalizeLogo(raw);
  }

  /** The bytes of a stored logo (a normalized PNG), or null when nothing is stored under `key`. */
  async logo(key: string): Promise<Buffer | null> {
    const cached = this.logos.get(key);
    if (cached) return cached;
    const stored = await this.storage.get(key);
    if (!stored) return null;
    if (this.logos.size >= LOGO_CACHE_ENTRIES) this.logos.delete(this.logos.keys().next().value as string);
    this.logos.set(key, stored.bytes);
    return stored.bytes;
  }

  /** Stores an SVG under its content hash; returns the key. `beforeStore` as for prepareLogo. */
  async storeSvg(svg: string, beforeStore?: (key: string) => Promise<void>): Promise<string> {
    const key = contentKey(svg, 'svg');
    await beforeStore?.(key);
    await this.storage.put(key, Buffer.from(svg), 'image/svg+xml');
    return key;
  }

  /** The stored bytes and their type, or null. */
  get(key: string): Promise<StoredObject | null> {
    return this.storage.get(key);
  }

  /** Public URL of an image on the image host. */
  url(key: string): string {
    return this.storage.url(key);
  }

  /** Removes an image; a missing key is not an error. The caller knows that nothing refers to it any more. */
  async delete(key: string): Promise<void> {
    this.logos.delete(key);
    await this.storage.delete(key);
  }
}
