import { Resolver } from 'node:dns/promises';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../common/config/config';

/** The TXT record a workspace publishes to prove it controls a host name. */
export const challengeName = (hostname: string) => `_scanlink-challenge.${hostname}`;

/** Per query; c-ares tries each server `tries` times. A verify call waits at most about timeout × tries × servers. */
const TIMEOUT_MS = 2000;
const TRIES = 2;

/** Why a check did not verify: the record is not there, or the lookup itself failed (the record may well exist). */
export type ChallengeError = 'not_found' | 'timeout' | 'refused' | 'servfail' | 'lookup_failed';
export type ChallengeResult = { found: true; error: null } | { found: false; error: ChallengeError };

const LOOKUP_ERRORS: Record<string, ChallengeError> = {
  ETIMEOUT: 'timeout',
  ECONNREFUSED: 'refused',
  EREFUSED: 'refused',
  ESERVFAIL: 'servfail',
};

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

  /** Looks up the TXT record at `_scanlink-challenge.<hostname>`: found when one equals `value` (its strings joined, as
   * RFC 7208 does); otherwise why not: `not_found` (no such name, no TXT record, or none with the value) or a failed
   * lookup (`timeout`, `refused`, `servfail`, `lookup_failed`), which says nothing about the record. */
  async check(hostname: string, value: string): Promise<ChallengeResult> {
    const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: TRIES });
    if (this.servers.length) resolver.setServers(this.servers);
    try {
      const records = await resolver.resolveTxt(challengeName(hostname));
      return records.some((chunks) => chunks.join('').trim() === value) ? { found: true, error: null } : { found: false, error: 'not_found' };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') return { found: false, error: 'not_found' };
      this.logger.warn(`TXT lookup for ${hostname} failed: ${code ?? (err as Error).message}`);
      return { found: false, error: LOOKUP_ERRORS[code ?? ''] ?? 'lookup_failed' };
    }
  }
}
