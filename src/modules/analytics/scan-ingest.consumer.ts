import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { createRedis } from '../../common/redis/redis.provider';
import { scansIngested } from '../../common/metrics/metrics';
import { SCAN_STREAM, SCAN_STREAM_GROUP, type ScanRecord } from '../scan/scan-contract';
import { parseScanEntry } from './scan-entry';
import { EventsService } from '../events/events.service';
import { storeScans } from './scan-store';
import { publishLive, SCAN_LIVE_ACTIVE_KEY } from './scan-live';

/** Entries per XREADGROUP (each holds up to SCAN_BATCH_MAX scans); also the most entries stored in one batch. */
const READ_COUNT = 20;
/** How long one XREADGROUP waits for new entries; also bounds how long shutdown waits for the loop. */
const BLOCK_MS = 1000;
/** Batches stored at once (each in its own transaction and pool connection): the next read is parsed and sent while
 * the previous batch commits. Two batches of the same codes queue on the code rows' locks, so more would only wait. */
const IN_FLIGHT = 2;
/** An entry pending this long belongs to a consumer that died (a live one stores an entry in well under a second). */
export const RECLAIM_IDLE_MS = 60_000;
/** How often each worker looks for such entries. */
export const RECLAIM_INTERVAL_MS = 5_000;
/** An entry delivered this many times without being stored is dropped (logged). Data errors are dropped at once, so
 * this is a last guard against an unforeseen poison entry; it is high enough (≈ 18 h of retries at one per
 * RECLAIM_IDLE_MS) that a database outage does not lose scans. */
const MAX_DELIVERIES = 1000;
/** Consumers with nothing pending and idle this long are removed from the group (stopped or dead workers). */
const STALE_CONSUMER_MS = 3_600_000;

type StreamEntry = [id: string, fields: string[]];

/**
 * Worker-only: reads ScanRecord batches from the Redis stream through the consumer group and stores them
 * (scan-store.ts), then XACKs and XDELs each entry, so the stream holds only unprocessed entries. Several workers
 * share the group, each under its own consumer name. An entry is acknowledged only after its transaction committed;
 * entries a dead worker left pending are claimed again after RECLAIM_IDLE_MS (storing is idempotent by scan id).
 */
@Injectable()
export class ScanIngestConsumer implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ScanIngestConsumer.name);
  readonly consumer = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private redis: Redis | null = null;
  /** Its own connection for the live feed's stream, so a publish never waits behind the blocking read. */
  private live: Redis | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private lastReclaim = 0;

  constructor(
    private readonly orm: MikroORM,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: EventsService,
  ) {}

  onApplicationBootstrap(): void {
    // A dedicated connection: XREADGROUP BLOCK holds it for up to BLOCK_MS.
    this.redis = createRedis(this.config.redisUrl, 'scan-ingest');
    this.live = createRedis(this.config.redisUrl, 'scan-live');
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopping = true;
    // The loop ends after its current read (≤ BLOCK_MS) and the entries it is storing; the ORM is still open here.
    await this.loop?.catch(() => undefined);
    const live = this.live;
    this.live = null;
    await live?.quit().catch(() => live.disconnect());
    const redis = this.redis;
    this.redis = null;
    if (!redis) return;
    await this.forgetSelf(redis).catch(() => undefined);
    await redis.quit().catch(() => redis.disconnect());
  }

  private async run(): Promise<void> {
    let ready = false;
    const inFlight = new Set<Promise<void>>();
    while (!this.stopping) {
      const redis = this.redis!;
      try {
        if (!ready) {
          await this.ensureGroup(redis);
          ready = true;
        }
        if (Date.now() - this.lastReclaim >= RECLAIM_INTERVAL_MS) await this.reclaim();
        const res = (await redis.xreadgroup(
          'GROUP', SCAN_STREAM_GROUP, this.consumer, 'COUNT', READ_COUNT, 'BLOCK', BLOCK_MS, 'STREAMS', SCAN_STREAM, '>',
        )) as [string, StreamEntry[]][] | null;
        const entries = res?.[0]?.[1] ?? [];
        if (entries.length > 0) {
          // Stored in the background while the next read is made, at most IN_FLIGHT batches at a time.
          const job = this.ingest(entries).catch((err: Error) => this.logger.error(`scan ingestion: ${err.message}`));
          inFlight.add(job);
          void job.finally(() => inFlight.delete(job));
          if (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
        }
      } catch (err) {
        if (this.stopping) break;
        const message = (err as Error).message ?? String(err);
        // The group is gone (Redis restarted without persistence, or the stream was deleted): create it again.
        if (message.includes('NOGROUP')) ready = false;
        this.logger.warn(`scan ingestion: ${message}; retrying in 1 s`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    await Promise.all(inFlight);
  }

  /** Creates the group at the start of the stream, so scans queued before the first worker ever ran are stored too. */
  private async ensureGroup(redis: Redis): Promise<void> {
    try {
      await redis.xgroup('CREATE', SCAN_STREAM, SCAN_STREAM_GROUP, '0', 'MKSTREAM');
    } catch (err) {
      if (!(err as Error).message?.includes('BUSYGROUP')) throw err;
    }
  }

  /**
   * Stores entries, READ_COUNT at a time as one batch (one transaction), then acknowledges and deletes the stored and
   * the malformed ones. When a batch fails, its entries are stored one by one, so that one entry Postgres refuses
   * cannot hold back the others.
   */
  async ingest(entries: StreamEntry[]): Promise<void> {
    const done: string[] = [];
    let stored = 0;
    const parsed: { id: string; records: ScanRecord[] }[] = [];
    for (const [id, fields] of entries) {
      const entry = fields ? parseScanEntry(fields) : null;
      if (!entry) {
        // Never log the content: even a broken entry is visitor data.
        this.logger.warn(`scan ingestion: dropping malformed stream entry ${id}`);
        done.push(id);
        continue;
      }
      if (entry.invalid > 0) this.logger.warn(`scan ingestion: entry ${id}: ${entry.invalid} malformed record(s) dropped`);
      parsed.push({ id, records: entry.records });
    }
    for (let i = 0; i < parsed.length; i += READ_COUNT) {
      const batch = parsed.slice(i, i + READ_COUNT);
      if (batch.length > 1 && (await this.store(batch.flatMap((e) => e.records)).then(() => true, () => false))) {
        done.push(...batch.map((e) => e.id));
        stored += batch.reduce((n, e) => n + e.records.length, 0);
        continue;
      }
      for (const { id, records } of batch) {
        if (await this.storeEntry(id, records)) {
          done.push(id);
          stored += records.length;
        }
      }
    }
    if (done.length > 0 && this.redis) {
      await this.redis.multi().xack(SCAN_STREAM, SCAN_STREAM_GROUP, ...done).xdel(SCAN_STREAM, ...done).exec();
    }
    // Counted once acknowledged and deleted, so scans_ingested and the stream backlog never disagree.
    scansIngested.inc(stored);
  }

  /** Whether some api process has a live feed open (SCAN_LIVE_ACTIVE_KEY), looked up at most once a second. */
  private liveActive = false;
  private liveCheckedAt = 0;

  private async liveOpen(): Promise<boolean> {
    const now = Date.now();
    if (this.live && now - this.liveCheckedAt >= 1_000) {
      this.liveCheckedAt = now;
      this.liveActive = (await this.live.exists(SCAN_LIVE_ACTIVE_KEY).catch(() => 0)) === 1;
    }
    return this.liveActive;
  }

  private async store(records: ScanRecord[]): Promise<void> {
    const result = await storeScans(this.orm.em.fork(), this.events, records, await this.liveOpen());
    if (result.stored.length && this.live) {
      // The live feed (GET /v1/scans/live): after commit, one entry per batch; a failure loses only live events.
      void publishLive(this.live, records, result.stored).catch((err: Error) => this.logger.warn(`scan live feed: ${err.message}`));
    }
  }

  /** true when the entry may be acknowledged (stored, or refused by Postgres as bad data). */
  private async storeEntry(id: string, records: ScanRecord[]): Promise<boolean> {
    try {
      await this.store(records);
      return true;
    } catch (err) {
      const sqlState = (err as { code?: unknown }).code;
      if (typeof sqlState === 'string' && /^22/.test(sqlState)) {
        // A data exception (a value Postgres refuses): retrying cannot help. Logged by id, never by content.
        this.logger.error(`scan ingestion: dropping stream entry ${id}: Postgres refused its data (SQLSTATE ${sqlState})`);
        return true;
      }
      // Anything else (database unavailable, …) is left pending and claimed again after RECLAIM_IDLE_MS.
      this.logger.error(`scan ingestion: entry ${id} not stored: ${(err as Error).message}`);
      return false;
    }
  }

  /**
   * Claims entries pending longer than RECLAIM_IDLE_MS (their consumer died or failed to store them) and stores them.
   * XCLAIM with the same min-idle time is atomic, so two workers never both take one entry. Also tidies the group.
   */
  async reclaim(): Promise<number> {
    this.lastReclaim = Date.now();
    const redis = this.redis;
    if (!redis) return 0;
    let total = 0;
    for (let round = 0; round < 10 && !this.stopping; round++) {
      const pending = (await redis.xpending(SCAN_STREAM, SCAN_STREAM_GROUP, 'IDLE', RECLAIM_IDLE_MS, '-', '+', 100)) as [
        string, string, number, number,
      ][];
      if (pending.length === 0) break;
      const poison = pending.filter((p) => p[3] >= MAX_DELIVERIES).map((p) => p[0]);
      if (poison.length > 0) {
        this.logger.error(`scan ingestion: dropping ${poison.length} entr(ies) after ${MAX_DELIVERIES} failed deliveries: ${poison.join(', ')}`);
        await redis.multi().xack(SCAN_STREAM, SCAN_STREAM_GROUP, ...poison).xdel(SCAN_STREAM, ...poison).exec();
      }
      const ids = pending.filter((p) => p[3] < MAX_DELIVERIES).map((p) => p[0]);
      if (ids.length === 0) continue;
      const claimed = (await redis.xclaim(SCAN_STREAM, SCAN_STREAM_GROUP, this.consumer, RECLAIM_IDLE_MS, ...ids)) as (StreamEntry | null)[];
      const entries = claimed.filter((e): e is StreamEntry => Array.isArray(e) && Array.isArray(e[1]));
      if (entries.length > 0) {
        this.logger.log(`scan ingestion: reclaimed ${entries.length} entr(ies) from stopped consumers`);
        await this.ingest(entries);
        total += entries.length;
      }
      if (pending.length < 100) break;
    }
    await this.removeStaleConsumers(redis).catch(() => undefined);
    return total;
  }

  private async removeStaleConsumers(redis: Redis): Promise<void> {
    const rows = (await redis.xinfo('CONSUMERS', SCAN_STREAM, SCAN_STREAM_GROUP)) as (string | number)[][];
    for (const row of rows) {
      const info: Record<string, string | number> = {};
      for (let i = 0; i + 1 < row.length; i += 2) info[String(row[i])] = row[i + 1];
      if (info.name !== this.consumer && Number(info.pending) === 0 && Number(info.idle) > STALE_CONSUMER_MS) {
        await redis.xgroup('DELCONSUMER', SCAN_STREAM, SCAN_STREAM_GROUP, String(info.name));
      }
    }
  }

  /** On a clean stop, leave the group unless something is still pending for this consumer (another worker claims it). */
  private async forgetSelf(redis: Redis): Promise<void> {
    const mine = (await redis.xpending(SCAN_STREAM, SCAN_STREAM_GROUP, '-', '+', 1, this.consumer)) as unknown[];
    if (mine.length === 0) await redis.xgroup('DELCONSUMER', SCAN_STREAM, SCAN_STREAM_GROUP, this.consumer);
  }
}
