import { Injectable } from '@nestjs/common';
import { InjectQueue } from '@nestjs/bull';
import { Cron, CronExpression } from '@nestjs/schedule';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import { QUEUES } from './queues';

/**
 * Enqueues a maintenance job under a job id made of its name and the current UTC hour: every worker's hourly
 * schedule calls this, Bull keeps one job per id, so the job runs once an hour however many workers there are.
 */
export async function enqueueHourly(queue: Queue, job: string): Promise<void> {
  const hour = new Date().toISOString().slice(0, 13);
  await queue.add(job, {}, { jobId: `${job}:${hour}` });
}

/**
 * The hourly schedule of a maintenance job (a purge): a provider for the worker module, beside the job's @Process
 * handler on the maintenance queue. Every worker enqueues under the same hourly job id, so the job runs once an hour.
 */
export function hourlySchedule(job: string): new (queue: Queue) => { schedule(): Promise<void> } {
  @Injectable()
  class HourlySchedule {
    constructor(@InjectQueue(QUEUES.maintenance) readonly queue: Queue) {}

    @Cron(CronExpression.EVERY_HOUR, { name: job })
    schedule(): Promise<void> {
      return enqueueHourly(this.queue, job);
    }
  }
  Object.defineProperty(HourlySchedule, 'name', { value: `HourlySchedule(${job})` });
  return HourlySchedule;
}

/** Rows per delete statement: short statements, short locks, bounded WAL bursts. */
const DELETE_BATCH = 5000;

/**
 * Deletes the rows of `table` whose `column` is before `cutoff`, DELETE_BATCH at a time, and returns how many went.
 * `table` and `column` are constants of the caller (never input); `column` should be indexed.
 */
export async function deleteOlderThan(em: EntityManager, table: string, column: string, cutoff: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const res = await em.execute<{ n: string }[]>(
      `with gone as (delete from ${table} where id in (select id from ${table} where ${column} < ? limit ?) returning 1)
       select count(*) as n from gone`,
      [cutoff, DELETE_BATCH],
    );
    const n = Number(res[0]?.n ?? 0);
    deleted += n;
    if (n < DELETE_BATCH) return deleted;
  }
}
