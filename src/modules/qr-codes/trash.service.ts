import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import type { DeletedQrCodeDto, EmptiedTrashDto } from './dto/qr-code-response.dto';
import { QrCodeImagesService } from './qr-code-images.service';
import { purgeTrash } from './qr-lifecycle';

/** The Trash through the API: emptying it, or deleting one trashed code for good. The same purge as the CLI's
 * `trash:empty` and the worker's retention (GS1 identifiers retired, storage objects no code uses deleted, every code
 * named in the audit log); paused codes are never touched. */
@Injectable()
export class TrashService {
  constructor(
    private readonly em: EntityManager,
    private readonly images: QrCodeImagesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Permanently deletes every trashed code of the workspace's environment. */
  async empty(auth: AuthContext): Promise<EmptiedTrashDto> {
    const deleted = await this.purge({ organizationId: auth.organizationId, environment: auth.environment });
    return { object: 'trash', deleted };
  }

  /** Permanently deletes one trashed code; a live, paused, foreign or unknown one is 404. */
  async deleteOne(auth: AuthContext, id: string): Promise<DeletedQrCodeDto> {
    const deleted = /^s?qr_[0-9A-Za-z]+$/.test(id) ? await this.purge({ organizationId: auth.organizationId, environment: auth.environment, id }) : 0;
    if (!deleted) throw ApiException.notFound('QR code in the Trash', id);
    return { id, object: 'qr_code', deleted: true };
  }

  private async purge(scope: { organizationId: string; environment: string; id?: string }): Promise<number> {
    const { deleted, orphanKeys } = await purgeTrash(this.em.fork(), { ...scope, gs1RetirementDays: this.config.gs1RetirementDays });
    // Objects whose delete fails stay queued for the worker's hourly sweep.
    if (orphanKeys.length) await this.images.deleteQueued(orphanKeys);
    return deleted;
  }
}
