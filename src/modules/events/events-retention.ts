import { Process, Processor } from '@nestjs/bull';
import { Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { deleteOlderThan, hourlySchedule } from '../../common/queue/maintenance';
import { QUEUES } from '../../common/queue/queues';

/** Events are retained 30 days (docs/webhooks.md) (their delivery records too: webhooks/ purges those, and they cascade). */
export const EVENT_RETENTION_DAYS = 30;
export const EVENTS_RETENTION_JOB = 'events-retention';

/** Hourly, once across workers. */
export const EventsRetentionScheduler = hourlySchedule(EVENTS_RETENTION_JOB);

/** Deletes events older than 30 days, in batches so no statement holds locks for long. */
@Processor(QUEUES.maintenance)
export class EventsRetentionProcessor {
  private readonly logger = new Logger(EventsRetentionProcessor.name);

  constructor(private readonly orm: MikroORM) {}

  @Process(EVENTS_RETENTION_JOB)
  async purge(): Promise<{ events: number }> {
    const cutoff = new Date(Date.now() - EVENT_RETENTION_DAYS * 86_400_000);
    // Deliveries of these events go with them (on delete cascade), whatever their own age.
    const events = await deleteOlderThan(this.orm.em.fork(), 'events', 'created_at', cutoff);
    if (events) this.logger.log(`event retention: ${events} event(s) deleted`);
    return { events };
  }
}
