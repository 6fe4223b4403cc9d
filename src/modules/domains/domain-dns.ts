import { Resolver } from 'node:dns/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config/config';

/** The TXT record a workspace publishes to prove it controls a host name. */
export const challengeName = (hostname: string) => `_scanlink-challenge.${hostname}`;

/** Per query; c-ares tries each server `tries` times. A verify call waits at most about timeout × tries × servers. */
const TIMEOUT_MS = 2000;
const TRIES = 2;

/**
 * Looks up verification TXT records with Node's resolver. DOMAIN_DNS_SERVERS replaces the system resolvers. A fresh
 * Resolver per check, so no answer is ever reused from an earlier lookup (a record removed since is seen as removed).
 */
@Injectable()
export class DomainDns {
  private readonly logger = new Logger('DomainDns');
  private readonly servers: string[];

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.servers = config.domainDnsServers;
  }

  /** True when a TXT record at `_scanlink-challenge.<hostname>` equals `value` (its strings joined, as RFC 7208 does). */
  async hasChallenge(hostname: string, value: string): Promise<boolean> {
    const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: TRIES });
    if (this.servers.length) resolver.setServers(this.servers);
    try {
      const records = await resolver.resolveTxt(challengeName(hostname));
      return records.some((chunks) => chunks.join('').trim() === value);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // No such name or no TXT record: simply not verified. Anything else (timeout, refused, SERVFAIL) is logged.
      if (code !== 'ENOTFOUND' && code !== 'ENODATA') this.logger.warn(`TXT lookup for ${hostname} failed: ${code ?? (err as Error).message}`);
      return false;
    }
  }
}
