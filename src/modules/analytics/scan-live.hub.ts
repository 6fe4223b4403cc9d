import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { createRedis, REDIS } from '../../common/redis/redis.provider';
import { parseLiveEntry, SCAN_LIVE_ACTIVE_KEY, SCAN_LIVE_ACTIVE_TTL_S, SCAN_LIVE_STREAM, type LiveScan } from './scan-live';

/** Most live feeds open at once per key (or dashboard session key), across api processes. */
export const MAX_FEEDS_PER_KEY = 5;
/** A feed's registration is refreshed this often (with each heartbeat) and counts as gone after FEED_STALE_MS. */
export const FEED_REFRESH_MS = 15_000;
const FEED_STALE_MS = 60_000;
const FEEDS_KEY = (keyId: string) => `scanlink:live:feeds:${keyId}`;
const BLOCK_MS = 1000;

export interface LiveEvent {
  /** `<stream entry id>.<index in the entry>` */
  id: string;
  scan: LiveScan;
}
type Listener = (events: LiveEvent[]) => void;

const eventsOf = (entryId: string, fields: string[], after?: { entry: string; index: number }): LiveEvent[] =>
  parseLiveEntry(fields)
    .map((scan, index) => ({ id: `${entryId}.${index}`, scan, index }))
    .filter((e) => !after || entryId !== after.entry || e.index > after.index)
    .map(({ id, scan }) => ({ id, scan }));

/** Orders two stream entry ids (`<ms>-<seq>`). */
export function compareEntryIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number);
  const [bm, bs] = b.split('-').map(Number);
  return am - bm || as - bs;
}

/** Parses a Last-Event-ID (`<ms>-<seq>.<index>`); null when absent or not one of ours. */
export function parseLastEventId(raw: string | undefined): { entry: string; index: number } | null {
  const m = raw ? /^(\d{1,15}-\d{1,10})\.(\d{1,6})$/.exec(raw.trim()) : null;
  return m ? { entry: m[1], index: Number(m[2]) } : null;
}

/**
 * The api process's side of the live feed: one reader of SCAN_LIVE_STREAM (XREAD BLOCK on its own connection) while
 * any feed is open, fanning entries out to the open feeds in memory; resuming feeds read the stream's past entries
 * with XRANGE. The open-feed limit is a sorted set per key in Redis (feed id → last refresh), shared by all api
 * processes; a feed that stops refreshing (its process died) drops out after a minute.
 */
@Injectable()
export class ScanLiveHub implements OnModuleDestroy {
  private readonly logger = new Logger('ScanLiveHub');
  private readonly listeners = new Set<Listener>();
  /** Ends each open feed's response (at shutdown). */
  private readonly enders = new Set<() => void>();
  private reader: Redis | null = null;
  private loop: Promise<void> | null = null;
  private last = '$';
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** Registers a feed for `keyId`; 429 when MAX_FEEDS_PER_KEY are open. Returns the feed id. */
  async open(keyId: string): Promise<string> {
    const key = FEEDS_KEY(keyId);
    const feed = randomBytes(9).toString('base64url');
    const now = Date.now();
    const res = (await this.redis
      .multi()
      .zremrangebyscore(key, '-inf', now - FEED_STALE_MS)
      .zadd(key, now, feed)
      .zcard(key)
      .pexpire(key, FEED_STALE_MS)
      .set(SCAN_LIVE_ACTIVE_KEY, '1', 'EX', SCAN_LIVE_ACTIVE_TTL_S)
      .exec()) as [Error | null, unknown][];
    const count = Number(res[2][1]);
    if (count > MAX_FEEDS_PER_KEY) {
      await this.redis.zrem(key, feed);
      throw new ApiException('rate_limited', `At most ${MAX_FEEDS_PER_KEY} live feeds may be open at once per key; close one first`, { retryAfter: 15, limit: MAX_FEEDS_PER_KEY });
    }
    return feed;
  }

  refresh(keyId: string, feed: string): void {
    const key = FEEDS_KEY(keyId);
    void this.redis
      .multi()
      .zadd(key, Date.now(), feed)
      .pexpire(key, FEED_STALE_MS)
      .set(SCAN_LIVE_ACTIVE_KEY, '1', 'EX', SCAN_LIVE_ACTIVE_TTL_S)
      .exec()
      .catch(() => undefined);
  }

  close(keyId: string, feed: string): void {
    void this.redis.zrem(FEEDS_KEY(keyId), feed).catch(() => undefined);
  }

  /** The events after `after` still in the stream (at most `limit`), oldest first. */
  async since(after: { entry: string; index: number }, limit = 1000): Promise<LiveEvent[]> {
    const entries = (await this.redis.xrange(SCAN_LIVE_STREAM, after.entry, '+', 'COUNT', limit)) as [string, string[]][];
    return entries.flatMap(([id, fields]) => eventsOf(id, fields, after));
  }

  subscribe(listener: Listener, end?: () => void): () => void {
    this.listeners.add(listener);
    if (end) this.enders.add(end);
    if (!this.loop) {
      this.reader = createRedis(this.config.redisUrl, 'scan-live-reader');
      this.last = '$';
      this.loop = this.read();
    }
    return () => {
      this.listeners.delete(listener);
      if (end) this.enders.delete(end);
    };
  }

  private async read(): Promise<void> {
    while (this.reader && this.listeners.size > 0) {
      try {
        const res = (await this.reader.xread('COUNT', 100, 'BLOCK', BLOCK_MS, 'STREAMS', SCAN_LIVE_STREAM, this.last)) as [string, [string, string[]][]][] | null;
        if (!res) continue;
        for (const [, entries] of res) {
          for (const [id, fields] of entries) {
            this.last = id;
            const events = eventsOf(id, fields);
            if (events.length) for (const l of this.listeners) l(events);
          }
        }
      } catch (err) {
        if (!this.reader) break;
        this.logger.warn(`live feed read: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    const reader = this.reader;
    this.reader = null;
    this.loop = null;
    await reader?.quit().catch(() => reader.disconnect());
    // A feed opened while this loop was ending: read on from where it stopped.
    if (this.listeners.size > 0 && !this.loop && !this.stopped) {
      this.reader = createRedis(this.config.redisUrl, 'scan-live-reader');
      this.loop = this.read();
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    for (const end of [...this.enders]) end();
    this.listeners.clear();
    const loop = this.loop;
    await loop?.catch(() => undefined);
  }
}
