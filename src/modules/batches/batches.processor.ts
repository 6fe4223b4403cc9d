import { Process, Processor } from '@nestjs/bull';
import { Injectable } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import type { Job } from 'bull';
import { QUEUES } from '../../common/queue/queues';
import { BatchesService, PROCESS_BATCH_JOB } from './batches.service';

@Processor(QUEUES.batches)
export class BatchesProcessor {
  constructor(private readonly batches: BatchesService) {}

  @Process(PROCESS_BATCH_JOB)
  async handle(job: Job<{ batchId: string }>): Promise<void> {
    await this.batches.process(job.data.batchId);
  }
}

/** Every minute: batches still processing with no progress for two minutes (their worker died) are enqueued again. */
@Injectable()
export class BatchesSweeper {
  constructor(private readonly batches: BatchesService) {}

  @Cron(CronExpression.EVERY_MINUTE)
  async sweep(): Promise<void> {
    await this.batches.resumeStalled(120_000);
  }
}
