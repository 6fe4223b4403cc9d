import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { QrCodesModule } from './qr-codes.module';
import { StorageDeletesScheduler, TrashRetentionProcessor, TrashRetentionScheduler } from './trash-retention';

/** Worker process: Trash retention (codes trashed longer than TRASH_RETENTION_DAYS, and their unused images) and the
 * sweep of queued storage deletes. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.maintenance }), QrCodesModule],
  providers: [TrashRetentionScheduler, StorageDeletesScheduler, TrashRetentionProcessor],
})
export class QrCodesWorkerModule {}
