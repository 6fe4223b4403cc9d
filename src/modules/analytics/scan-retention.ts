import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { QUEUES } from '../../common/queue/queues';

export const SCAN_RETENTION_JOB = 'scan-retention';
/** Rows per delete statement: short statements, short locks, bounded WAL bursts. */
const DELETE_BATCH = 5000;

/** Hourly: enqueue the raw-scan purge under a deterministic job id (one per hour), so two workers never run it twice. */
@Injectable()
export class ScanRetentionScheduler {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  @Cron(CronExpression.EVERY_HOUR)
  async schedule(): Promise<void> {
    const hour = new Date().toISOString().slice(0, 13);
    await this.queue.add(SCAN_RETENTION_JOB, {}, { jobId: `${SCAN_RETENTION_JOB}:${hour}` });
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
  async purge(): Promise<{ deleted: number }> {
    const em = this.orm.em.fork();
    const cutoff = new Date(Date.now() - this.config.scanRetentionDays * 86_400_000);
    let deleted = 0;
    for (;;) {
      const res = await em.execute<{ n: string }[]>(
        `with gone as (delete from scans where id in (select id from scans where scanned_at < ? limit ?) returning 1)
         select count(*) as n from gone`,
        [cutoff, DELETE_BATCH],
      );
      const n = Number(res[0]?.n ?? 0);
      deleted += n;
      if (n < DELETE_BATCH) break;
    }
    if (deleted) this.logger.log(`scan retention: ${deleted} raw scan(s) older than ${this.config.scanRetentionDays} days deleted`);
    return { deleted };
  }
}
