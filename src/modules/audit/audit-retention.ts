import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { deleteOlderThan, hourlySchedule } from '../../common/queue/maintenance';
import { QUEUES } from '../../common/queue/queues';

export const AUDIT_RETENTION_DAYS = 365;
export const AUDIT_RETENTION_JOB = 'audit-retention';

/** Hourly, once across workers. */
export const AuditRetentionScheduler = hourlySchedule(AUDIT_RETENTION_JOB);

/** Deletes audit entries older than 365 days, in batches. */
@Processor(QUEUES.maintenance)
export class AuditRetentionProcessor {
  private readonly logger = new Logger(AuditRetentionProcessor.name);

  constructor(private readonly orm: MikroORM) {}

  @Process(AUDIT_RETENTION_JOB)
  async purge(): Promise<{ entries: number }> {
    const cutoff = new Date(Date.now() - AUDIT_RETENTION_DAYS * 86_400_000);
    const entries = await deleteOlderThan(this.orm.em.fork(), 'audit_log', 'created_at', cutoff);
    if (entries) this.logger.log(`audit retention: ${entries} entr(ies) deleted`);
    return { entries };
  }
}
