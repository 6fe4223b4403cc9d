import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { deleteOlderThan, enqueueHourly } from '../../common/queue/maintenance';
import { QUEUES } from '../../common/queue/queues';

export const SCAN_RETENTION_JOB = 'scan-retention';

/**
 * Forgets which visitors codes had on UTC days before yesterday (scan_visitors): uniqueness is decided per UTC day, a
 * late scan of yesterday still finds yesterday's visitors, and the salts of those days are deleted after 48 hours.
 */
export async function pruneVisitors(em: EntityManager, now = new Date()): Promise<number> {
  const res = await em.execute<{ n: number }[]>(
    `with gone as (delete from scan_visitors where day < (?::timestamptz at time zone 'UTC')::date - 1 returning 1) select count(*)::int as n from gone`,
    [now.toISOString()],
  );
  return res[0]?.n ?? 0;
}

/** Hourly: enqueue the raw-scan purge under a deterministic job id (one per hour), so two workers never run it twice. */
@Injectable()
export class ScanRetentionScheduler {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  @Cron(CronExpression.EVERY_HOUR)
  schedule(): Promise<void> {
    return enqueueHourly(this.queue, SCAN_RETENTION_JOB);
  }
}

/** Deletes raw scans older than SCAN_RETENTION_DAYS in chunks (scans_time_idx). The daily rollups, which analytics
 * reads, are not touched: they live as long as their code. */
@Processor(QUEUES.maintenance)
export class ScanRetentionProcessor {
  private readonly logger = new Logger(ScanRetentionProcessor.name);

  constructor(
    private readonly orm: MikroORM,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Process(SCAN_RETENTION_JOB)
  async purge(): Promise<{ deleted: number; visitors: number }> {
    const cutoff = new Date(Date.now() - this.config.scanRetentionDays * 86_400_000);
    const deleted = await deleteOlderThan(this.orm.em.fork(), 'scans', 'scanned_at', cutoff);
    if (deleted) this.logger.log(`scan retention: ${deleted} raw scan(s) older than ${this.config.scanRetentionDays} days deleted`);
    const visitors = await pruneVisitors(this.orm.em.fork());
    return { deleted, visitors };
  }
}
