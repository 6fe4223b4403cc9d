import { Injectable, Logger } from '@nestjs/common';
import type { Archiver } from 'archiver';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { QrCodesService } from '../qr-codes/qr-codes.service';
import { createZip, csvRow, slug } from './batch-archive';
import type { BatchItem } from './batch.entity';
import { BatchesService } from './batches.service';

/** `GET /v1/batches/{id}/download`: every completed item's image plus manifest.csv, streamed as a ZIP. */
@Injectable()
export class BatchDownloadService {
  private readonly logger = new Logger(BatchDownloadService.name);

  constructor(
    private readonly batches: BatchesService,
    private readonly qrCodes: QrCodesService,
  ) {}

  /** Checks the batch (404, 422 while processing) and returns the archive, which fills while it is being sent. */
  async open(auth: AuthContext, id: string, format: 'svg' | 'png', size: number): Promise<{ filename: string; archive: Archiver }> {
    const batch = await this.batches.find(auth, id);
    if (batch.status === 'processing') {
      throw new ApiException('batch_processing', 'The batch is still processing; download it once its status is completed');
    }
    const items = await this.batches.items(batch);
    const { archive } = createZip();
    void this.fill(auth, batch.id, items, archive, format, size);
    return { filename: `${batch.id}.zip`, archive };
  }

  private async fill(auth: AuthContext, batchId: string, items: BatchItem[], archive: Archiver, format: 'svg' | 'png', size: number): Promise<void> {
    try {
      let manifest = csvRow(['id', 'name', 'short_url', 'status', 'error']);
      for (const item of items) {
        if (item.status !== 'completed') {
          manifest += csvRow(['', item.name, '', item.status, item.error]);
          continue;
        }
        let code: { id: string; name: string; short_url: string | null };
        try {
          code = await this.qrCodes.retrieve(auth, item.qrCodeId);
        } catch {
          manifest += csvRow([item.qrCodeId, item.name, '', 'deleted', 'the code was deleted after the batch ran']);
          continue;
        }
        const file = await this.qrCodes.download(auth, item.qrCodeId, format, size).catch((err: Error) => err);
        if (file instanceof Error) {
          manifest += csvRow([code.id, code.name, code.short_url, 'failed', file.message]);
          continue;
        }
        archive.append(file.body, { name: `${slug(String(code.name), 'code')}-${code.id}.${format}` });
        manifest += csvRow([code.id, code.name, code.short_url, 'completed', '']);
      }
      archive.append(manifest, { name: 'manifest.csv' });
      await archive.finalize();
    } catch (err) {
      this.logger.error(`batch ${batchId} download failed: ${(err as Error).message}`);
      archive.destroy(err as Error);
    }
  }
}
