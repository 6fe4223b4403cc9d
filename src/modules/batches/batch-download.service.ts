import { Injectable, Logger } from '@nestjs/common';
import type { Archiver } from 'archiver';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { QrCodesService } from '../qr-codes/qr-codes.service';
import { appendAndWait, createZip, csvRow, MANIFEST_HEADER, slug } from './batch-archive';
import type { BatchItemRow } from './batch.presenter';
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
    const items = (await this.batches.itemRows([batch.id])).get(batch.id) ?? [];
    const archive = createZip();
    void this.fill(auth, batch.id, items, archive, format, size);
    return { filename: `${batch.id}.zip`, archive };
  }

  /** Draws one image at a time and waits until the archive has taken it (the client's pace) before the next. */
  private async fill(auth: AuthContext, batchId: string, items: BatchItemRow[], archive: Archiver, format: 'svg' | 'png', size: number): Promise<void> {
    try {
      let manifest = csvRow(MANIFEST_HEADER);
      const completed = items.filter((i) => i.status === 'completed');
      const drawn = this.qrCodes.drawEach(auth, completed.map((i) => i.qr_code_id), format, size);
      const names = new Map(completed.map((i) => [i.qr_code_id, i.name]));
      for (const item of items) {
        if (item.status !== 'completed') manifest += csvRow(['', item.name, '', item.status, item.error, '']);
      }
      for await (const { id, code, body, error } of drawn) {
        if (!code) {
          manifest += csvRow([id, names.get(id), '', 'deleted', 'the code was deleted after the batch ran', '']);
        } else if (body === undefined) {
          manifest += csvRow([code.id, code.name, code.short_url, 'failed', error, '']);
        } else {
          const file = `${slug(code.name, 'code')}-${code.id}.${format}`;
          await appendAndWait(archive, body, file, format === 'png');
          manifest += csvRow([code.id, code.name, code.short_url, 'completed', '', file]);
        }
      }
      archive.append(manifest, { name: 'manifest.csv' });
      await archive.finalize();
    } catch (err) {
      this.logger.warn(`batch ${batchId} download stopped: ${(err as Error).message}`);
      archive.destroy(err as Error);
    }
  }
}
