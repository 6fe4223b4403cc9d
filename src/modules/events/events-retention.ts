import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import { QUEUES } from '../../common/queue/queues';

/** Spec: events and delivery records are retained 30 days. */
export const EVENT_RETENTION_DAYS = 30;
export const EVENTS_RETENTION_JOB = 'events-retention';
const DELETE_BATCH = 5000;

/** Hourly: enqueue the purge under a deterministic job id (one per hour), so two workers never run it twice. */
@Injectable()
export class EventsRetentionScheduler {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  @Cron(CronExpression.EVERY_HOUR)
  async schedule(): Promise<void> {
    const hour = new Date().toISOString().slice(0, 13);
    await this.queue.add(EVENTS_RETENTION_JOB, {}, { jobId: `${EVENTS_RETENTION_JOB}:${hour}` });
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
    let deliveries = 0;
    let events = 0;
    for (;;) {
      const res = await em.execute<{ n: string }[]>(
        `with gone as (delete from webhook_deliveries where id in
           (select id from webhook_deliveries where created_at < ? limit ?) returning 1) select count(*) as n from gone`,
        [cutoff, DELETE_BATCH],
      );
      const n = Number(res[0]?.n ?? 0);
      deliveries += n;
      if (n < DELETE_BATCH) break;
    }
    for (;;) {
      // Deliveries of these events go with them (on delete cascade), whatever their own age.
      const res = await em.execute<{ n: string }[]>(
        `with gone as (delete from events where id in (select id from events where created_at < ? limit ?) returning 1)
         select count(*) as n from gone`,
        [cutoff, DELETE_BATCH],
      );
      const n = Number(res[0]?.n ?? 0);
      events += n;
      if (n < DELETE_BATCH) break;
    }
    if (events || deliveries) this.logger.log(`event retention: ${events} event(s), ${deliveries} delivery record(s) deleted`);
    return { events, deliveries };
  }
}
