import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { CHANNELS } from '../../common/queue/channels';
import { createRedis } from '../../common/redis/redis.provider';
import { DomainsRepository } from './domains.repository';
import { defaultSiteMatcher, hostnameOf, MAX_HOST_LENGTH, type ScanSite } from './scan-site';

/** Reload the whole map this often even without a message (a safety net for a lost pub/sub message). */
const REFRESH_MS = 60_000;
/** After a failed load (PostgreSQL unreachable), try again this soon. */
const RETRY_MS = 5_000;
/** Most `Host` header values remembered as they arrive (with ports, case); the memo starts over past it. */
const MAX_MEMO = 10_000;

/**
 * The scan process's map of host names to sites (scan-site.ts): the default scan host and every verified custom
 * domain, held in memory so routing a scan costs no I/O. Loaded at start, reloaded on CHANNELS.domainsChanged (a
 * domain verified or deleted, from any process), after a lost Redis subscription, and every minute. A domain that is
 * deleted or no longer verified leaves the map at the next reload, and its host then gets the 404 page.
 */
@Injectable()
export class DomainHostCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('DomainHostCache');
  private readonly isDefault: (name: string) => boolean;
  /** Verified custom domains: host name → domain id. */
  private hosts = new Map<string, string>();
  /** Raw `Host` values already resolved to a site (never an unknown host, so it cannot be filled with junk for
   * long; cleared on every reload). */
  private readonly memo = new Map<string, ScanSite>();
  private subscriber?: Redis;
  private timer?: NodeJS.Timeout;
  private loading?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly orm: MikroORM,
  ) {
    this.isDefault = defaultSiteMatcher(config.scanBaseUrl);
  }

  async onModuleInit(): Promise<void> {
    const sub = createRedis(this.config.redisUrl, 'scan-domains');
    this.subscriber = sub;
    sub.on('message', () => void this.refresh());
    let subscribedOnce = false;
    sub.on('ready', () => {
      // Messages published while the subscription was down are lost: reload.
      if (subscribedOnce) void this.refresh();
      subscribedOnce = true;
    });
    await sub.subscribe(CHANNELS.domainsChanged);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /** The site of a request's `Host` header (no I/O): null for the default scan host (also when the header is
   * missing), a domain id for a verified custom domain, undefined for any other host. */
  siteOf(host: string | undefined): ScanSite | undefined {
    if (host === undefined) return null;
    const known = this.memo.get(host);
    if (known !== undefined) return known;
    const name = hostnameOf(host);
    const site = this.isDefault(name) ? null : this.hosts.get(name);
    // Only well-formed values are remembered (the scan host answers 400 to the others before asking), so the memo
    // holds at most MAX_MEMO short strings.
    if (site !== undefined && host.length <= MAX_HOST_LENGTH) {
      if (this.memo.size >= MAX_MEMO) this.memo.clear();
      this.memo.set(host, site);
    }
    return site;
  }

  /** Reloads the map from PostgreSQL; concurrent calls share a load, and a call during a load runs one more after it
   * (so a change committed meanwhile is seen). A failed load keeps the previous map. */
  refresh(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    const run = async () => {
      do {
        this.again = false;
        await this.load();
      } while (this.again);
    };
    const loading = run().finally(() => {
      if (this.loading === loading) this.loading = undefined;
    });
    this.loading = loading;
    return loading;
  }

  private async load(): Promise<void> {
    try {
      const rows = await new DomainsRepository(this.orm.em.fork()).verifiedHosts();
      this.hosts = new Map(rows.map((r) => [r.hostname, r.id]));
      this.memo.clear();
    } catch (err) {
      this.logger.warn(`custom domains could not be loaded, keeping the previous map (retrying in 5 s): ${(err as Error).message}`);
      if (!this.stopped) setTimeout(() => void (this.stopped || this.refresh()), RETRY_MS).unref();
    }
  }
}

/** Tells every scan process that a domain was verified or deleted (after commit); a lost message is made up for by
 * the periodic reload. */
export function announceDomainChange(redis: Redis, hostname: string, logger: Logger): void {
  redis
    .publish(CHANNELS.domainsChanged, JSON.stringify({ hostname }))
    .catch((err: Error) => logger.warn(`custom domain change publish failed: ${err.message}`));
}
