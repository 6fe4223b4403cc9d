import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { enqueueHourly } from '../../common/queue/maintenance';
import { QUEUES } from '../../common/queue/queues';
import { purgeTrash } from '../qr-codes/qr-lifecycle';
import { RenderingService } from '../rendering/rendering.service';

export const TRASH_RETENTION_JOB = 'trash-retention';

/** Hourly: enqueue the Trash purge under a deterministic job id, so several workers never run it twice. */
@Injectable()
export class TrashRetentionScheduler {
  constructor(@InjectQueue(QUEUES.maintenance) private readonly queue: Queue) {}

  @Cron(CronExpression.EVERY_HOUR)
  schedule(): Promise<void> {
    return enqueueHourly(this.queue, TRASH_RETENTION_JOB);
  }
}

/** Permanently deletes codes trashed more than TRASH_RETENTION_DAYS ago (paused codes are never touched). */
@Processor(QUEUES.maintenance)
export class TrashRetentionProcessor {
  private readonly logger = new Logger(TrashRetentionProcessor.name);

  constructor(
    private readonly orm: MikroORM,
    private readonly rendering: RenderingService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Process(TRASH_RETENTION_JOB)
  async purge(): Promise<{ deleted: number }> {
    const olderThan = new Date(Date.now() - this.config.trashRetentionDays * 86_400_000);
    const { deleted, orphanKeys } = await purgeTrash(this.orm.em.fork(), { olderThan });
    for (const key of orphanKeys) await this.rendering.deleteObject(key).catch(() => undefined);
    if (deleted) this.logger.log(`trash retention: ${deleted} code(s) deleted permanently`);
    return { deleted };
  }
}
