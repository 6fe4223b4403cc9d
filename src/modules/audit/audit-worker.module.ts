import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { AuditRetentionProcessor, AuditRetentionScheduler } from './audit-retention';

/** Worker process: the 365-day retention of the audit log. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.maintenance })],
  providers: [AuditRetentionScheduler, AuditRetentionProcessor],
})
export class AuditWorkerModule {}
