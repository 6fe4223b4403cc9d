import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { RenderingModule } from '../rendering/rendering.module';
import { TrashRetentionProcessor, TrashRetentionScheduler } from './trash-retention';

/** Worker-only: retention schedules and their processors. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.maintenance }), RenderingModule],
  providers: [TrashRetentionScheduler, TrashRetentionProcessor],
})
export class RetentionModule {}
