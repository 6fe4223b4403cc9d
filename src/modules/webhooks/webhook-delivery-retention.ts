import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { deleteOlderThan, hourlySchedule } from '../../common/queue/maintenance';
import { QUEUES } from '../../common/queue/queues';

/** Delivery records are retained 30 days (docs/webhooks.md), like the events they belong to. */
export const DELIVERY_RETENTION_DAYS = 30;
export const DELIVERY_RETENTION_JOB = 'webhook-delivery-retention';

/** Hourly, once across workers. */
export const WebhookDeliveryRetentionScheduler = hourlySchedule(DELIVERY_RETENTION_JOB);

/** Deletes delivery records older than 30 days, in batches so no statement holds locks for long. */
@Processor(QUEUES.maintenance)
export class WebhookDeliveryRetentionProcessor {
  private readonly logger = new Logger(WebhookDeliveryRetentionProcessor.name);

  constructor(private readonly orm: MikroORM) {}

  @Process(DELIVERY_RETENTION_JOB)
  async purge(): Promise<{ deliveries: number }> {
    const cutoff = new Date(Date.now() - DELIVERY_RETENTION_DAYS * 86_400_000);
    const deliveries = await deleteOlderThan(this.orm.em.fork(), 'webhook_deliveries', 'created_at', cutoff);
    if (deliveries) this.logger.log(`delivery retention: ${deliveries} delivery record(s) deleted`);
    return { deliveries };
  }
}
