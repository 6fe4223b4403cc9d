import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import { deleteOlderThan, enqueueHourly } from '../../common/queue/maintenance';
import { QUEUES } from '../../common/queue/queues';

/** Spec: events and delivery records are retained 30 days. */
export const EVENT_RETENTION_DAYS = 30;
export const EVENTS_RETENTION_JOB = 'events-retention';

/** Hourly: enqueue the purge under a deterministic job id (one per hour), so two workers never run it twice. */
@Injectable()
export class EventsRetentionScheduler {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  @Cron(CronExpression.EVERY_HOUR)
  schedule(): Promise<void> {
    return enqueueHourly(this.queue, EVENTS_RETENTION_JOB);
  }
}

/** Deletes events and delivery records older than 30 days, in batches so no statement holds locks for long. */
@Processor(QUEUES.maintenance)
export class EventsRetentionProcessor {
  private readonly logger = new Logger(EventsRetentionProcessor.name);

  constructor(private readonly orm: MikroORM) {}

  @Process(EVENTS_RETENTION_JOB)
  async purge(): Promise<{ events: number; deliveries: number }> {
    const em = this.orm.em.fork();
    const cutoff = new Date(Date.now() - EVENT_RETENTION_DAYS * 86_400_000);
    const deliveries = await deleteOlderThan(em, 'webhook_deliveries', 'created_at', cutoff);
    // Deliveries of these events go with them (on delete cascade), whatever their own age.
    const events = await deleteOlderThan(em, 'events', 'created_at', cutoff);
    if (events || deliveries) this.logger.log(`event retention: ${events} event(s), ${deliveries} delivery record(s) deleted`);
    return { events, deliveries };
  }
}
