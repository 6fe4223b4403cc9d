import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import type { Redis } from 'ioredis';
import { QUEUES } from '../../common/queue/queues';
import { REDIS } from '../../common/redis/redis.provider';
import { DomainDns } from './domain-dns';
import { announceDomainChange } from './domain-host-cache';
import { DomainsRepository } from './domains.repository';
import { VERIFICATION_WINDOW_MS } from './domains.service';

export const DOMAIN_RECHECK_JOB = 'domain-recheck';
const EVERY_MS = 10 * 60_000;
/** Domains looked up at once, and per database round trip. */
const PARALLEL = 8;
const PAGE = 200;

/** The job id of the current 10-minute window: every worker's schedule enqueues the same id, Bull keeps one. */
export function recheckJobId(now = Date.now()): string {
  return `${DOMAIN_RECHECK_JOB}:${new Date(Math.floor(now / EVERY_MS) * EVERY_MS).toISOString()}`;
}

/** Every 10 minutes: enqueue the re-check of pending domains under a deterministic job id. */
@Injectable()
export class DomainRecheckScheduler {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  @Cron(CronExpression.EVERY_10_MINUTES)
  async schedule(): Promise<void> {
    await this.queue.add(DOMAIN_RECHECK_JOB, {}, { jobId: recheckJobId() });
  }
}

/** Looks up every pending domain's TXT record: found → verified (other claims of the name → failed, `taken`); 7 days
 * after creation without it → failed. */
@Processor(QUEUES.maintenance)
export class DomainRecheckProcessor {
  private readonly logger = new Logger(DomainRecheckProcessor.name);

  constructor(
    private readonly orm: MikroORM,
    private readonly dns: DomainDns,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Process(DOMAIN_RECHECK_JOB)
  async recheck(): Promise<{ checked: number; verified: number }> {
    const repo = new DomainsRepository(this.orm.em.fork());
    const started = new Date();
    const failBefore = new Date(started.getTime() - VERIFICATION_WINDOW_MS);
    let checked = 0;
    let verified = 0;
    for (;;) {
      // Each checked row gets checked_at = now() > started, so the loop ends once every pending domain had its turn.
      const rows = await repo.pending(started, PAGE);
      for (let i = 0; i < rows.length; i += PARALLEL) {
        await Promise.all(
          rows.slice(i, i + PARALLEL).map(async (d) => {
            const result = await this.dns.check(d.hostname, d.verification_value);
            const outcome = await repo.recordCheck(d.id, result, failBefore);
            checked += 1;
            if (outcome === 'verified') {
              verified += 1;
              announceDomainChange(this.redis, d.hostname, this.logger);
            }
          }),
        );
      }
      if (rows.length < PAGE) break;
    }
    // Claims past their window that no check reached (a worker was down, a lookup kept failing) fail too.
    const expired = await repo.expirePending(failBefore);
    if (checked || expired) this.logger.log(`domain re-check: ${checked} pending domain(s) checked, ${verified} verified, ${expired} expired`);
    return { checked, verified };
  }
}
