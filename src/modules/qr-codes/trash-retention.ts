import { Process, Processor } from '@nestjs/bull';
import { Inject, Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { hourlySchedule } from '../../common/queue/maintenance';
import { QUEUES } from '../../common/queue/queues';
import { QrCodeImagesService } from './qr-code-images.service';
import { purgeTrash } from './qr-lifecycle';

export const TRASH_RETENTION_JOB = 'trash-retention';
export const STORAGE_DELETES_JOB = 'storage-deletes';

/** Hourly, once across workers. */
export const TrashRetentionScheduler = hourlySchedule(TRASH_RETENTION_JOB);
/** Hourly, once across workers: queued storage deletes that failed (or whose process stopped) are tried again. */
export const StorageDeletesScheduler = hourlySchedule(STORAGE_DELETES_JOB);

/** Permanently deletes codes trashed more than TRASH_RETENTION_DAYS ago (paused codes are never touched). */
@Processor(QUEUES.maintenance)
export class TrashRetentionProcessor {
  private readonly logger = new Logger(TrashRetentionProcessor.name);

  constructor(
    private readonly orm: MikroORM,
    private readonly images: QrCodeImagesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Process(TRASH_RETENTION_JOB)
  async purge(): Promise<{ deleted: number }> {
    const olderThan = new Date(Date.now() - this.config.trashRetentionDays * 86_400_000);
    const { deleted, orphanKeys } = await purgeTrash(this.orm.em.fork(), { olderThan, gs1RetirementDays: this.config.gs1RetirementDays });
    await this.images.deleteQueued(orphanKeys);
    if (deleted) this.logger.log(`trash retention: ${deleted} code(s) deleted permanently`);
    return { deleted };
  }

  @Process(STORAGE_DELETES_JOB)
  async sweepStorage(): Promise<{ deleted: number; failed: number }> {
    const { deleted, failed } = await this.images.deleteQueued();
    if (failed.length) this.logger.warn(`storage deletes: ${failed.length} object(s) could not be deleted; tried again later`);
    return { deleted: deleted.length, failed: failed.length };
  }
}
