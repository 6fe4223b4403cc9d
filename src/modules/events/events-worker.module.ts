import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { EventsRetentionProcessor, EventsRetentionScheduler } from './events-retention';

/** Worker process: the 30-day retention of events. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.maintenance })],
  providers: [EventsRetentionScheduler, EventsRetentionProcessor],
})
export class EventsWorkerModule {}
