import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { EntityManager } from '@mikro-orm/postgresql';
import { ImagesService } from '../images/images.service';
import type { Design } from '../rendering/design';
import type { ImageRequest } from '../rendering/image-request';
import { PNG_CONCURRENCY, RenderingService } from '../rendering/rendering.service';
import { decodeImage, type ScannabilityReport } from '../rendering/scannability';
import { holdKeys, pinKeys, queueUnusedKeys, sweepStorageDeletes, unpinKeys } from './image-references.repository';
import { OUT_OF_PROCESS_PNG_SIZE, PngRenderPool } from './png-render-process';
import { PinQueue } from './pin-queue';

/** A writer's pins: every object it stores is pinned under its token (image-references.repository.ts) until unpin(),
 * so no concurrent delete of the same content-addressed key removes it before the writer's code refers to it. */
export interface StoragePins {
  readonly token: string;
}

/**
 * The images of QR codes: the stored SVG behind image_url and the design's logo. Rendering draws (pure), the images
 * module stores; this decides when, and releases an image only when no code refers to it any more (images are
 * content-addressed and may be shared by identical codes): image-references.repository.ts queues the delete under the
 * key's lock and a failed storage delete is tried again later (the worker's sweep), never dropped.
 */
@Injectable()
export class QrCodeImagesService implements OnModuleDestroy {
  /** Large PNGs are drawn in renderer child processes (png-render-process.ts): the process's memory stays flat. */
  private readonly bigPngs: PngRenderPool;
  /** Each writer's pin queue, by token, from pins() to unpin(). */
  private readonly pinQueues = new Map<string, PinQueue>();

  constructor(
    private readonly em: EntityManager,
    private readonly rendering: RenderingService,
    private readonly images: ImagesService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.bigPngs = new PngRenderPool(config.pngRenderProcesses);
  }

  /** Payloads (with their error correction) known to fit: a batch checks the same placeholder short URL for each of
   * its dynamic items, and encoding is the costliest part of drawing a code. */
  private readonly fitting = new Set<string>();

  /** 400 `payload_too_large` when the payload does not fit at the design's error correction. */
  assertFits(payload: string, design: Design): void {
    const key = `${design.error_correction}:${payload}`;
    if (this.fitting.has(key)) return;
    this.rendering.assertFits(payload, design);
    if (this.fitting.size >= 1000) this.fitting.clear();
    this.fitting.add(key);
  }

  /** New pins for a writer: pass them to prepareLogo and store, and unpin them once its codes are committed (or it
   * gave up), in a `finally`. */
  pins(): StoragePins {
    const token = randomUUID();
    this.pinQueues.set(token, new PinQueue((keys) => pinKeys(this.em.fork(), token, keys)));
    return { token };
  }

  /** Pins `key` for the writer; returns once the pin is committed. */
  private pin(pins: StoragePins, key: string): Promise<void> {
    const queue = this.pinQueues.get(pins.token);
    return queue ? queue.pin(key) : pinKeys(this.em.fork(), pins.token, [key]);
  }

  /** The writer is done: its pins go, and what it stored but did not reference is deleted now (unless shared). */
  async unpin(pins: StoragePins): Promise<void> {
    this.pinQueues.delete(pins.token);
    const left = await unpinKeys(this.em.fork(), pins.token);
    if (left.length) await this.deleteQueued(left);
  }

  /** The stored logo of a design (fetched, checked, pinned and stored once), or null when it has none. */
  async prepareLogo(design: Design, pins: StoragePins): Promise<string | null> {
    return design.logo ? this.images.prepareLogo(design.logo.url, (key) => this.pin(pins, key)) : null;
  }

  /** Checks the design's logo as prepareLogo would (a 400 on `design.logo.url`), storing nothing. */
  async checkLogo(design: Design): Promise<void> {
    if (design.logo) await this.images.loadLogo(design.logo.url);
  }

  /** Draws the code's SVG, pins and stores it; returns its key. */
  async store(payload: string, design: Design, logoKey: string | null, pins: StoragePins): Promise<string> {
    const svg = await this.rendering.renderSvg(payload, design, await this.logo(design, logoKey));
    return this.images.storeSvg(svg, (key) => this.pin(pins, key));
  }

  onModuleDestroy(): void {
    this.bigPngs.stop();
  }

  /** The code drawn for a download: an SVG of `size` (its width attribute), a PNG or WebP `size` pixels wide, or a PDF
   * whose symbol is `printMm` wide. */
  async draw(req: ImageRequest, payload: string, design: Design, logoKey: string | null): Promise<Buffer | string> {
    return this.drawWith(req, payload, design, await this.logo(design, logoKey));
  }

  /** As draw, with the logo's bytes at hand (previews: a logo that is not stored). */
  drawWith(req: ImageRequest, payload: string, design: Design, logo: Buffer | null): Promise<Buffer | string> {
    const { format, size } = req;
    if (format === 'svg') return this.rendering.renderSvg(payload, design, logo, size);
    if (format === 'pdf') return this.rendering.renderPdf(payload, design, logo, req.printMm);
    return size > OUT_OF_PROCESS_PNG_SIZE ? this.bigPngs.render(payload, design, logo, size, format) : this.rendering.renderRaster(format, payload, design, logo, size);
  }

  /** How many images of this kind are drawn at once: a caller drawing ahead (a batch ZIP) keeps that many requests
   * open, and one more, so that no renderer waits for it. */
  drawsAtOnce(req: ImageRequest): number {
    const { format, size } = req;
    return (format === 'png' || format === 'webp') && size > OUT_OF_PROCESS_PNG_SIZE ? this.bigPngs.capacity : PNG_CONCURRENCY;
  }

  /** The logo of a design checked and normalized but not stored (previews), or null without a logo. */
  async loadLogo(design: Design): Promise<Buffer | null> {
    return design.logo ? this.images.loadLogo(design.logo.url) : null;
  }

  /** Renders the PNG the request describes and reads it back with an independent decoder (zxing-cpp). */
  async check(req: ImageRequest, payload: string, design: Design, logo: Buffer | null): Promise<ScannabilityReport> {
    const png = (await this.drawWith({ ...req, format: 'png' }, payload, design, logo)) as Buffer;
    const decoded = await decodeImage(png);
    return this.rendering.scannability(payload, design, logo, decoded === payload);
  }

  url(key: string): string {
    return this.images.url(key);
  }

  /** Releases stored images and logos: each one no code refers to any more is queued for deletion and deleted now;
   * a storage failure leaves it queued for the worker's sweep. */
  async release(keys: readonly (string | null | undefined)[]): Promise<void> {
    const queued = await queueUnusedKeys(this.em.fork(), keys.filter((k): k is string => !!k));
    if (queued.length) await this.deleteQueued(queued);
  }

  /** Deletes queued objects: `keys` (already queued), or every due one (the worker's sweep). */
  deleteQueued(keys?: readonly string[]): Promise<{ deleted: string[]; failed: string[] }> {
    return sweepStorageDeletes(this.em.fork(), (key) => this.images.delete(key), { keys });
  }

  /** Inside the transaction that commits a code referring to these keys (see holdKeys). */
  hold(tx: EntityManager, keys: readonly (string | null | undefined)[]): Promise<void> {
    return holdKeys(tx, keys);
  }

  private async logo(design: Design, logoKey: string | null): Promise<Buffer | null> {
    return design.logo && logoKey ? this.images.logo(logoKey) : null;
  }
}
