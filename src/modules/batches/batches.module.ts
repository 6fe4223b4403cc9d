import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { QrCodesModule } from '../qr-codes/qr-codes.module';
import { BatchesController } from './batches.controller';
import { BatchesProcessor, BatchesSweeper } from './batches.processor';
import { BatchesService } from './batches.service';

/** API side: accepts batches and serves them. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.batches }), QrCodesModule],
  controllers: [BatchesController],
  providers: [BatchesService],
  exports: [BatchesService],
})
export class BatchesModule {}

/** Worker side: the processor and the stalled-batch sweeper (only the worker imports this). */
@Module({
  imports: [BatchesModule, BullModule.registerQueue({ name: QUEUES.batches })],
  providers: [BatchesProcessor, BatchesSweeper],
})
export class BatchesWorkerModule {}
