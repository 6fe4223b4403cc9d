import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import IORedis, { type Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { countScanBuffered, countScansFlushed } from '../../common/metrics/metrics';
import { encodeScanBatch, SCAN_BATCH_MAX, SCAN_COMPACT_FIELD, SCAN_STREAM, type ScanRecord } from './scan-contract';

/** Scans held while Redis is unreachable (about 300 bytes each); beyond this the oldest are dropped and counted. */
export const SCAN_BUFFER_LIMIT = 200_000;
/** Stream entries written per pipeline. */
const ENTRIES_PER_FLUSH = 20;
/** How long the last flush at shutdown keeps retrying an unreachable Redis (runProcess kills at 10 s). */
const SHUTDOWN_FLUSH_MS = 5_000;

/**
 * Counted scans on their way to the worker: appended in memory by the hot path, written to the Redis stream
 * SCAN_STREAM every scanFlushIntervalMs (or as soon as SCAN_BATCH_MAX are waiting) as entries of at most
 * SCAN_BATCH_MAX records, pipelined. While Redis is down the scans are kept (bounded) and retried; what is buffered
 * is written before the process stops.
 */
@Injectable()
export class ScanBuffer implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('ScanBuffer');
  /** Its own connection without an offline queue: a write to an unreachable Redis fails at once and is retried later,
   * and the connection stays open until the last flush, whatever order Nest closes providers in. */
  private readonly redis: Redis;
  private records: ScanRecord[] = [];
  private flushing?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private dropped = 0;
  private failing = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = new IORedis(config.redisUrl, {
      connectionName: 'scanlink:scan-buffer',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    this.redis.on('error', () => undefined); // reported by the failing flush
  }

  async onModuleInit(): Promise<void> {
    await this.redis.connect().catch((err: Error) => this.logger.warn(`scan stream connection: ${err.message}`));
    this.timer = setInterval(() => void this.flush(), this.config.scanFlushIntervalMs);
    this.timer.unref();
  }

  /** Queues one counted scan (no I/O here). */
  add(record: ScanRecord): void {
    this.records.push(record);
    countScanBuffered();
    if (this.records.length === SCAN_BATCH_MAX) void this.flush();
    else if (this.records.length > SCAN_BUFFER_LIMIT) this.trim();
  }

  /** Scans waiting in memory. */
  get size(): number {
    return this.records.length;
  }

  /** Writes everything waiting; one flush at a time (a caller during a flush gets the running one). */
  flush(): Promise<void> {
    this.flushing ??= this.writeAll().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** After the HTTP server closed: the last scans, retried for a while if Redis is unreachable. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    const until = Date.now() + SHUTDOWN_FLUSH_MS;
    await this.flush();
    while (this.records.length > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      await this.flush();
    }
    if (this.records.length > 0) this.logger.error(`${this.records.length} scans could not be queued before shutdown (Redis unreachable)`);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** Drops the oldest scans, a batch more than needed so that a full buffer is not trimmed on every scan. */
  private trim(): void {
    const over = this.records.length - SCAN_BUFFER_LIMIT + SCAN_BATCH_MAX;
    this.records.splice(0, over);
    this.dropped += over;
  }

  /** What is waiting now, then more only while full entries keep arriving (so entries are not written per scan). */
  private async writeAll(): Promise<void> {
    for (let first = true; first ? this.records.length > 0 : this.records.length >= SCAN_BATCH_MAX; first = false) {
      const taken = this.records.splice(0, SCAN_BATCH_MAX * ENTRIES_PER_FLUSH);
      const pipeline = this.redis.pipeline();
      for (let i = 0; i < taken.length; i += SCAN_BATCH_MAX) {
        pipeline.xadd(SCAN_STREAM, '*', SCAN_COMPACT_FIELD, encodeScanBatch(taken.slice(i, i + SCAN_BATCH_MAX)));
      }
      try {
        const results = await pipeline.exec();
        const failed = results?.find(([err]) => err)?.[0] ?? (results ? null : new Error('pipeline discarded'));
        if (failed) throw failed;
      } catch (err) {
        // Back in front, in order. A retried entry may duplicate one Redis did store: the worker is idempotent by id.
        this.records = taken.concat(this.records);
        if (this.records.length > SCAN_BUFFER_LIMIT) this.trim();
        if (!this.failing) this.logger.error(`scan stream write failed, keeping ${this.records.length} scans: ${(err as Error).message}`);
        this.failing = true;
        return;
      }
      countScansFlushed(taken.length);
      if (this.failing) this.logger.log('scan stream writes resumed');
      this.failing = false;
    }
    if (this.dropped > 0) {
      this.logger.error(`${this.dropped} scans were dropped while Redis was unreachable (buffer limit ${SCAN_BUFFER_LIMIT})`);
      this.dropped = 0;
    }
  }
}
