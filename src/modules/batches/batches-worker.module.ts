import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { BatchesProcessor, BatchesSweeper } from './batches.processor';
import { BatchesModule } from './batches.module';

/** Worker process: the processor and the stalled-batch sweeper (only the worker imports this). */
@Module({
  imports: [BatchesModule, BullModule.registerQueue({ name: QUEUES.batches })],
  providers: [BatchesProcessor, BatchesSweeper],
})
export class BatchesWorkerModule {}
