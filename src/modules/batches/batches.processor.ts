import { Process, Processor } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import type { Job } from 'bull';
import { QUEUES } from '../../common/queue/queues';
import { BatchRunnerService } from './batch-runner.service';
import { BatchesService, PROCESS_BATCH_JOB } from './batches.service';

@Processor(QUEUES.batches)
export class BatchesProcessor {
  constructor(private readonly runner: BatchRunnerService) {}

  @Process(PROCESS_BATCH_JOB)
  async handle(job: Job<{ batchId: string }>): Promise<void> {
    await this.runner.run(job.data.batchId);
  }
}

/** At boot and every 10 seconds: batches whose pending items nobody holds (a killed worker's, once its claims ran out;
 * jobs Redis lost) are queued again. */
@Injectable()
export class BatchesSweeper implements OnApplicationBootstrap {
  private readonly logger = new Logger(BatchesSweeper.name);

  constructor(private readonly batches: BatchesService) {}

  onApplicationBootstrap(): void {
    void this.sweep();
  }

  @Interval(10_000)
  async sweep(): Promise<void> {
    await this.batches.resumeStalled().catch((err: Error) => this.logger.warn(`batch sweep failed: ${err.message}`));
  }
}
