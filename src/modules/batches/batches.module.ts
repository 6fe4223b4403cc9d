import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { QrCodesModule } from '../qr-codes/qr-codes.module';
import { BatchRunnerService } from './batch-runner.service';
import { BatchesService } from './batches.service';

/** Batches: accepted by the api process, run by the worker. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.batches }), QrCodesModule],
  providers: [BatchesService, BatchRunnerService],
  exports: [BatchesService, BatchRunnerService, QrCodesModule],
})
export class BatchesModule {}
