import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import IORedis, { type Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { countScanBuffered, countScansFlushed } from '../../common/metrics/metrics';
import { encodeScanBatch, SCAN_BATCH_MAX, SCAN_COMPACT_FIELD, SCAN_STREAM, type ScanRecord } from './scan-contract';
import { RAW_WIDTH } from './scan-encoder';
import { ScanEncoding } from './scan-encoding';
import { VisitorSalts } from './visitor-salt';

/** Scans held while Redis is unreachable (about 300 bytes each); beyond this the oldest are dropped and counted. */
export const SCAN_BUFFER_LIMIT = 200_000;
/** Stream entries written per pipeline. */
const ENTRIES_PER_FLUSH = 20;
/** How long the last flush at shutdown keeps retrying an unreachable Redis (runProcess kills at 10 s). */
const SHUTDOWN_FLUSH_MS = 5_000;

/**
 * Counted scans on their way to the worker, written to the Redis stream SCAN_STREAM as entries of at most
 * SCAN_BATCH_MAX scans, pipelined.
 *  - The hot path appends each scan's raw facts (addScan: a dozen values on a flat array, no object, no hashing).
 *    Every scanFlushIntervalMs, or as soon as SCAN_BATCH_MAX are waiting, they go to the scan encoder
 *    (scan-encoding.ts: a thread of its own), which drops bots, works out the derived facts and the visitor hash and
 *    returns encoded entries; those are written at once.
 *  - add() takes an already built ScanRecord (encoded here, at the next flush).
 *  - While Redis is down the entries are kept (bounded) and retried; everything waiting is written before the process
 *    stops. The client address in a raw scan goes no further than the encoder's visitor hash.
 */
@Injectable()
export class ScanBuffer implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('ScanBuffer');
  /** Its own connection without an offline queue: a write to an unreachable Redis fails at once and is retried later,
   * and the connection stays open until the last flush, whatever order Nest closes providers in. */
  private readonly redis: Redis;
  /** The days' salts of the visitor hashes (in memory, refreshed from Redis every minute; handed to the encoder). */
  private readonly salts: VisitorSalts;
  private readonly encoding = new ScanEncoding((m) => this.logger.warn(m));
  /** Raw scans not yet handed to the encoder, RAW_WIDTH values each (scan-encoder.ts). */
  private raw: unknown[] = [];
  /** Scans at the encoder. */
  private encodingScans = 0;
  private readonly encodingNow = new Set<Promise<void>>();
  /** Built records (add()), not yet encoded. */
  private records: ScanRecord[] = [];
  /** Encoded entries not yet written, oldest first, with the scans each carries. */
  private entries: [data: string, scans: number][] = [];
  private entryScans = 0;
  private writing?: Promise<void>;
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
    this.salts = new VisitorSalts(this.redis, (salts) => this.encoding.setSalts(salts));
  }

  /** Today's visitor salt before the first scan (a failure is logged; such scans count as new visitors). */
  async onModuleInit(): Promise<void> {
    await this.redis.connect().catch((err: Error) => this.logger.warn(`scan stream connection: ${err.message}`));
    this.timer = setInterval(() => void this.flush(), this.config.scanFlushIntervalMs);
    this.timer.unref();
    await this.salts.start(60_000, (m) => this.logger.warn(m));
  }

  /**
   * Queues one counted scan (no I/O, no hashing here): when it happened, the code, the client address and user agent
   * (for the visitor hash and the user agent's facts), the Referer and Accept-Language headers, the place the hot
   * path looked up, and the rule, arm and expiry (ruleId undefined: no rule decided it). A bot's scan is dropped by
   * the encoder.
   */
  addScan(
    at: number,
    qrCodeId: string,
    organizationId: string,
    ip: string | undefined,
    userAgent: string | undefined,
    referer: string | undefined,
    acceptLanguage: string | undefined,
    country: string | null,
    city: string | null,
    ruleId: string | null | undefined,
    arm: number | null,
    expired: boolean,
  ): void {
    const raw = this.raw;
    raw.push(at, qrCodeId, organizationId, ip, userAgent, referer, acceptLanguage, country, city, ruleId, arm, expired);
    if (raw.length === SCAN_BATCH_MAX * RAW_WIDTH) this.encode();
  }

  /** Queues one built scan record (no I/O here). */
  add(record: ScanRecord): void {
    this.records.push(record);
    countScanBuffered();
    if (this.records.length === SCAN_BATCH_MAX) void this.flush();
    else if (this.size > SCAN_BUFFER_LIMIT) this.trim();
  }

  /** Scans waiting in this process (raw scans of bots among them until the encoder drops them). */
  get size(): number {
    return this.raw.length / RAW_WIDTH + this.encodingScans + this.records.length + this.entryScans;
  }

  /** Encodes and writes everything waiting now; resolves once it is written or the write failed (it is kept). */
  async flush(): Promise<void> {
    this.encode();
    while (this.encodingNow.size > 0) await Promise.all([...this.encodingNow]);
    for (let i = 0; i < this.records.length; i += SCAN_BATCH_MAX) {
      const chunk = this.records.slice(i, i + SCAN_BATCH_MAX);
      this.entries.push([encodeScanBatch(chunk), chunk.length]);
      this.entryScans += chunk.length;
    }
    this.records = [];
    if (this.writing) await this.writing;
    await this.write();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flush();
  }

  /** After the HTTP server closed: the last scans, retried for a while if Redis is unreachable. */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.salts.stop();
    const until = Date.now() + SHUTDOWN_FLUSH_MS;
    await this.flush();
    while (this.size > 0 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      await this.flush();
    }
    await this.encoding.close();
    if (this.size > 0) this.logger.error(`${this.size} scans could not be queued before shutdown (Redis unreachable)`);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** Hands the raw scans to the encoder; their entries are written as soon as they come back. */
  private encode(): void {
    if (this.raw.length === 0) return;
    const batch = this.raw;
    this.raw = [];
    const scans = batch.length / RAW_WIDTH;
    this.encodingScans += scans;
    const done = this.encoding.encode(batch).then((encoded) => {
      this.encodingScans -= scans;
      for (const entry of encoded.entries) {
        this.entries.push(entry);
        this.entryScans += entry[1];
      }
      countScanBuffered(encoded.counted);
      if (encoded.saltMissing) this.salts.missing();
      if (this.size > SCAN_BUFFER_LIMIT) this.trim();
      if (!this.failing) void this.write();
    });
    this.encodingNow.add(done);
    void done.finally(() => this.encodingNow.delete(done));
  }

  /** One writer at a time; a caller during a write gets the running one (which goes on while entries keep coming). */
  private write(): Promise<void> {
    this.writing ??= this.writeEntries().finally(() => (this.writing = undefined));
    return this.writing;
  }

  /** Drops the oldest scans, a batch more than needed so that a full buffer is not trimmed on every scan. */
  private trim(): void {
    let over = this.size - SCAN_BUFFER_LIMIT + SCAN_BATCH_MAX;
    while (over > 0 && this.entries.length > 0) {
      const [, scans] = this.entries.shift()!;
      this.entryScans -= scans;
      this.dropped += scans;
      over -= scans;
    }
    if (over > 0) {
      const n = Math.min(over, this.records.length);
      this.records.splice(0, n);
      this.dropped += n;
    }
  }

  /** The encoded entries, ENTRIES_PER_FLUSH per pipeline, until none is waiting or a write fails. */
  private async writeEntries(): Promise<void> {
    while (this.entries.length > 0) {
      const taken = this.entries.splice(0, ENTRIES_PER_FLUSH);
      const scans = taken.reduce((n, [, s]) => n + s, 0);
      this.entryScans -= scans;
      const pipeline = this.redis.pipeline();
      for (const [data] of taken) pipeline.xadd(SCAN_STREAM, '*', SCAN_COMPACT_FIELD, data);
      try {
        const results = await pipeline.exec();
        const failed = results?.find(([err]) => err)?.[0] ?? (results ? null : new Error('pipeline discarded'));
        if (failed) throw failed;
      } catch (err) {
        // Back in front, in order. A retried entry may duplicate one Redis did store: the worker is idempotent by id.
        this.entries = taken.concat(this.entries);
        this.entryScans += scans;
        if (this.size > SCAN_BUFFER_LIMIT) this.trim();
        if (!this.failing) this.logger.error(`scan stream write failed, keeping ${this.size} scans: ${(err as Error).message}`);
        this.failing = true;
        return;
      }
      countScansFlushed(scans);
      if (this.failing) this.logger.log('scan stream writes resumed');
      this.failing = false;
    }
    if (this.dropped > 0) {
      this.logger.error(`${this.dropped} scans were dropped while Redis was unreachable (buffer limit ${SCAN_BUFFER_LIMIT})`);
      this.dropped = 0;
    }
  }
}
