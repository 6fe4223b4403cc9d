import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { CHANNELS } from '../../common/queue/channels';
import { createRedis, REDIS } from '../../common/redis/redis.provider';
import { findByGs1Key, findByShortCode } from '../qr-codes/qr-codes.repository';
import { type ScanSite, siteKey } from '../domains/scan-site';
import type { ScanEntry } from './scan-answer';
import { type CachedCode, SCAN_CODE_KEY_PREFIX } from './scan-contract';
import { fixedLocation } from './scan-destination';
import { visitorDecider } from '../targets/registry';

/** Per code (site key): bumped by every scan process on each invalidation, so a fill that read the database before
 * the change cannot write its stale copy into Redis afterwards (see SET_IF_UNCHANGED). */
export const SCAN_CODE_GEN_KEY_PREFIX = 'scanlink:code-gen:';
const MAX_ENTRIES = 50_000;
/** A byte budget as well: a menu or link page target can be large, and its rendered page is kept beside it. */
const MAX_BYTES = 256 * 1024 * 1024;
/** Estimated bytes of an entry: the target, and its rendered page (escaped HTML, up to about four times the text). */
const entrySize = (entry: ScanEntry): number => 512 + (entry.code ? JSON.stringify(entry.code.target).length * 5 : 0);
/** Unknown short codes are remembered briefly (in this process only), so guessing codes does not reach Postgres. */
const NEGATIVE_TTL_MS = 5_000;
const SHORT_CODE = /^[0-9A-Za-z]{7}$/;
/** A GS1 identifier (gs1_key, `/01/09506000134352/10/LOT42`): the other kind of key, for the resolver's lookups. */
const GS1_KEY = /^\/\d{2,4}\/[^?#\s]{1,400}$/;
const DOMAIN_ID = /^dom_[0-9A-Za-z]{16,40}$/;
/** An acknowledgement token (qr-codes/scan-cache-invalidator.ts: 12 random bytes, base64url). */
const ACK = /^[A-Za-z0-9_-]{16}$/;

/** SET the code only if absent and only if no invalidation happened since the fill read the generation. */
const SET_IF_UNCHANGED = `
if (redis.call('GET', KEYS[2]) or '') ~= ARGV[1] then return 0 end
return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3], 'NX') and 1 or 0`;

function isCachedCode(v: unknown): v is CachedCode {
  const c = v as CachedCode | null;
  return (
    typeof c === 'object' && c !== null && typeof c.id === 'string' && typeof c.organizationId === 'string' &&
    typeof c.type === 'string' && typeof c.status === 'string' && typeof c.isActive === 'boolean' &&
    typeof c.target === 'object' && c.target !== null
  );
}

const entryOf = (code: CachedCode | null): ScanEntry => ({
  code,
  location: code ? fixedLocation(code) : null,
  decide: code ? visitorDecider(code.type, code.target) : null,
  gated: !!code && (code.expiresAt != null || code.maxScans != null || !!code.passwordTag),
});

/**
 * Codes for the scan host, by short code or by GS1 identifier (the resolver's keys start with `/`): an in-process
 * LRU in front of a Redis copy shared by every scan process, in front of one Postgres read (concurrent misses for a code share it). CHANNELS.qrInvalidate drops a code from both in every
 * scan process, so a new destination works on the next scan. Entries are per site (the default scan host or a custom
 * domain, domains/scan-site.ts): every key below is `siteKey(site, short_code)`, so a code answers on its own host only.
 */
@Injectable()
export class ScanCodeCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ScanCodeCache');
  private readonly lru: LRUCache<string, ScanEntry>;
  private readonly inflight = new Map<string, Promise<ScanEntry>>();
  private readonly ttlSeconds: number;
  /** One token per running fill; an invalidation of that code (or a reset) removes it, and a fill whose token is gone
   * may be answered from but is not kept. Per code, so that edits of other codes never make fills useless. */
  private readonly fills = new Map<string, object>();
  private subscriber?: Redis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly orm: MikroORM,
  ) {
    this.ttlSeconds = config.scanCacheTtlSeconds;
    this.lru = new LRUCache<string, ScanEntry>({
      max: MAX_ENTRIES,
      maxSize: MAX_BYTES,
      sizeCalculation: entrySize,
      ttl: this.ttlSeconds * 1000,
      ttlResolution: 100,
    });
  }

  async onModuleInit(): Promise<void> {
    const sub = createRedis(this.config.redisUrl, 'scan-invalidate');
    this.subscriber = sub;
    sub.on('message', (_channel: string, message: string) => this.onInvalidate(message));
    sub.on('error', (err: Error) => this.logger.warn(`invalidation subscriber: ${err.message}`));
    let subscribedOnce = false;
    sub.on('ready', () => {
      // ioredis subscribes again after a reconnect; messages published meanwhile are lost, so forget everything.
      if (subscribedOnce) this.clear();
      subscribedOnce = true;
    });
    await sub.subscribe(CHANNELS.qrInvalidate);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /** The code of `key` (siteKey(site, short_code)) when this process holds it (no I/O), else undefined: then call
   * load(). */
  peek(key: string): ScanEntry | undefined {
    return this.lru.get(key);
  }

  /** The code from Redis or Postgres; concurrent calls for one code share one lookup. */
  load(site: ScanSite, shortCode: string): Promise<ScanEntry> {
    const key = siteKey(site, shortCode);
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const token = {};
    this.fills.set(key, token);
    const lookup = this.fill(site, shortCode, key, token).finally(() => {
      if (this.inflight.get(key) === lookup) this.inflight.delete(key);
      if (this.fills.get(key) === token) this.fills.delete(key);
    });
    this.inflight.set(key, lookup);
    return lookup;
  }

  /** Drops one code here and in Redis (also what every scan process does on a CHANNELS.qrInvalidate message). */
  async invalidate(site: ScanSite, shortCode: string): Promise<void> {
    const key = siteKey(site, shortCode);
    this.fills.delete(key);
    this.lru.delete(key);
    this.inflight.delete(key);
    const genKey = SCAN_CODE_GEN_KEY_PREFIX + key;
    await this.redis
      .multi()
      .incr(genKey)
      .expire(genKey, this.ttlSeconds * 2)
      .del(SCAN_CODE_KEY_PREFIX + key)
      .exec();
  }

  private clear(): void {
    this.fills.clear();
    this.lru.clear();
    this.inflight.clear();
  }

  private onInvalidate(message: string): void {
    let parsed: { short_code?: unknown; domain_id?: unknown; gs1_key?: unknown; ack?: unknown };
    try {
      parsed = JSON.parse(message) as typeof parsed;
    } catch {
      return;
    }
    const { short_code: shortCode, domain_id: domainId = null, gs1_key: gs1Key, ack } = parsed ?? {};
    if (domainId !== null && (typeof domainId !== 'string' || !DOMAIN_ID.test(domainId))) return;
    const dropped: Promise<void>[] = [];
    for (const key of [shortCode, gs1Key]) {
      if (typeof key !== 'string' || !(SHORT_CODE.test(key) || GS1_KEY.test(key))) continue;
      dropped.push(this.invalidate(domainId, key).catch((err: Error) => this.logger.warn(`cache invalidation of a code failed in Redis: ${err.message}`)));
    }
    // The API answers the change once every scan process has acknowledged it (qr-codes/scan-cache-invalidator.ts):
    // after the LRU and the shared Redis copy are both rid of the code.
    if (typeof ack === 'string' && ACK.test(ack)) {
      void Promise.all(dropped)
        .then(() => this.redis.publish(CHANNELS.qrInvalidated, ack))
        .catch((err: Error) => this.logger.warn(`cache invalidation acknowledgement failed: ${err.message}`));
    }
  }

  private async fill(site: ScanSite, shortCode: string, cacheKey: string, token: object): Promise<ScanEntry> {
    const key = SCAN_CODE_KEY_PREFIX + cacheKey;
    const genKey = SCAN_CODE_GEN_KEY_PREFIX + cacheKey;
    // The Redis generation seen before reading Postgres; undefined when Redis is unavailable (then no Redis write).
    let redisGeneration: string | undefined;
    if (this.redis.status === 'ready') {
      try {
        const [json, gen] = await this.redis.mget(key, genKey);
        const cached = json ? this.parse(json) : undefined;
        if (cached) return this.keep(cacheKey, entryOf(cached), token);
        redisGeneration = gen ?? '';
      } catch (err) {
        this.logger.warn(`code cache read from Redis failed, reading Postgres: ${(err as Error).message}`);
      }
    }
    const code = await this.read(site, shortCode);
    const entry = this.keep(cacheKey, entryOf(code), token);
    if (code && redisGeneration !== undefined && this.fills.get(cacheKey) === token) {
      this.redis
        .eval(SET_IF_UNCHANGED, 2, key, genKey, redisGeneration, JSON.stringify(code), this.ttlSeconds)
        .catch((err: Error) => this.logger.warn(`code cache write to Redis failed: ${err.message}`));
    }
    return entry;
  }

  private keep(key: string, entry: ScanEntry, token: object): ScanEntry {
    if (this.fills.get(key) === token) this.lru.set(key, entry, entry.code ? undefined : { ttl: NEGATIVE_TTL_MS });
    return entry;
  }

  private parse(json: string): CachedCode | undefined {
    try {
      const v: unknown = JSON.parse(json);
      return isCachedCode(v) ? v : undefined;
    } catch {
      return undefined;
    }
  }

  /** The dynamic code with this short code (or GS1 identifier: keys starting with `/`) on the site's host, whatever
   * its state; null when there is none. */
  private async read(site: ScanSite, key: string): Promise<CachedCode | null> {
    const em = this.orm.em.fork();
    const row = key.startsWith('/') ? await findByGs1Key(em, site, key) : await findByShortCode(em, site, key);
    if (!row || row.kind !== 'dynamic') return null;
    const { kind: _kind, environment: _environment, ...code } = row;
    return code;
  }
}
