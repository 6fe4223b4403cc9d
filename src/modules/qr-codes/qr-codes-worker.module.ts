import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { ImagesModule } from '../images/images.module';
import { RenderingModule } from '../rendering/rendering.module';
import { QrCodeImagesService } from './qr-code-images.service';
import { TrashRetentionProcessor, TrashRetentionScheduler } from './trash-retention';

/** Worker process: Trash retention (codes trashed longer than TRASH_RETENTION_DAYS, and their unused images). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.maintenance }), RenderingModule, ImagesModule],
  providers: [QrCodeImagesService, TrashRetentionScheduler, TrashRetentionProcessor],
})
export class QrCodesWorkerModule {}
