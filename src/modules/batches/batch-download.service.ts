import { Injectable, Logger } from '@nestjs/common';
import type { Archiver } from 'archiver';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import type { QrCodeDto } from '../qr-codes/dto/qr-code-response.dto';
import type { ImageRequest } from '../rendering/image-request';
import { QrCodesService } from '../qr-codes/qr-codes.service';
import { appendAndWait, createZip, csvRow, MANIFEST_HEADER, slug } from './batch-archive';
import type { BatchItemRow } from './batch.presenter';
import { BatchesService } from './batches.service';

interface Drawn {
  id: string;
  code: QrCodeDto | null;
  body?: Buffer | string;
  error?: string;
}

/** `GET /v1/batches/{id}/download`: every completed item's image plus manifest.csv, streamed as a ZIP. */
@Injectable()
export class BatchDownloadService {
  private readonly logger = new Logger(BatchDownloadService.name);

  constructor(
    private readonly batches: BatchesService,
    private readonly qrCodes: QrCodesService,
  ) {}

  /** Checks the batch (404, 422 while processing) and returns the archive, which fills while it is being sent. */
  async open(auth: AuthContext, id: string, req: ImageRequest): Promise<{ filename: string; archive: Archiver }> {
    const batch = await this.batches.find(auth, id);
    if (batch.status === 'processing') {
      throw new ApiException('batch_processing', 'The batch is still processing; download it once its status is completed');
    }
    const items = (await this.batches.itemRows([batch.id])).get(batch.id) ?? [];
    const archive = createZip();
    void this.fill(auth, batch.id, items, archive, req);
    return { filename: `${batch.id}.zip`, archive };
  }

  /** Draws ahead of the archive, in order, by as many images as are drawn at once and one more, and writes each once
   * the archive has room for it: the pace is the client's. Above 1,500 px the renderer children (one per core) draw
   * two each at once and the one more waits in the api (as a request, not pixels), so a child starts its next image
   * the moment one is done; only encoded bytes reach the api. */
  private async fill(auth: AuthContext, batchId: string, items: BatchItemRow[], archive: Archiver, req: ImageRequest): Promise<void> {
    const { format } = req;
    try {
      // One manifest row per item, in the batch's order (images are drawn in that order too).
      const rows = items.map((item) => (item.status === 'completed' ? '' : csvRow(['', item.name, '', item.status, item.error])));
      const completed = items.filter((i) => i.status === 'completed');
      const names = new Map(completed.map((i) => [i.qr_code_id, i.name]));
      const position = new Map(items.map((i, at) => [i.qr_code_id, at]));
      const source = this.qrCodes.downloadables(auth, completed.map((i) => i.qr_code_id));
      const ahead = this.qrCodes.drawsAtOnce(req) + 1;
      const pending: Array<Promise<Drawn>> = [];
      let exhausted = false;
      const top = async () => {
        while (!exhausted && pending.length < ahead) {
          const next = await source.next();
          if (next.done) exhausted = true;
          else {
            const { id, code, draw } = next.value;
            pending.push(code ? draw(req).then((body) => ({ id, code, body }), (err: Error) => ({ id, code, error: err.message })) : Promise.resolve({ id, code }));
          }
        }
      };
      await top();
      while (pending.length > 0) {
        const { id, code, body, error } = await pending.shift()!;
        await top();
        const at = position.get(id)!;
        if (!code) {
          rows[at] = csvRow([id, names.get(id), '', 'deleted', 'the code was deleted after the batch ran']);
        } else if (body === undefined) {
          rows[at] = csvRow([code.id, code.name, code.short_url, 'failed', error]);
        } else {
          const file = `${slug(code.name, 'code')}-${code.id}.${format}`;
          // Already-compressed formats are stored; SVG (text) and PDF (whose streams are deflated but not its structure) are deflated.
          await appendAndWait(archive, body, file, format === 'png' || format === 'webp');
          rows[at] = csvRow([code.id, code.name, code.short_url, 'completed', '']);
        }
      }
      archive.append(csvRow(MANIFEST_HEADER) + rows.join(''), { name: 'manifest.csv' });
      await archive.finalize();
    } catch (err) {
      this.logger.warn(`batch ${batchId} download stopped: ${(err as Error).message}`);
      archive.destroy(err as Error);
    }
  }
}
