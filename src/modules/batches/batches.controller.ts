import { Body, Controller, Get, HttpCode, Logger, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresPlanFeature, RequiresScope } from '../../common/auth/decorators';
import { ApiException } from '../../common/errors/api.exception';
import { QrCodesService } from '../qr-codes/qr-codes.service';
import { createZip, csvRow, slug } from './batch-archive';
import { BatchDownloadQueryDto, BatchDto, BatchListDto, CreateBatchDto, ListBatchesQueryDto } from './batches.dto';
import { BatchesService } from './batches.service';

@ApiTags('Batches')
@Controller('batches')
export class BatchesController {
  private readonly logger = new Logger(BatchesController.name);

  constructor(
    private readonly batches: BatchesService,
    private readonly qrCodes: QrCodesService,
  ) {}

  @Post()
  @HttpCode(202)
  @RequiresScope('qr:write')
  @RequiresPlanFeature('batches')
  @ApiOperation({
    summary: 'Create up to 1,000 codes asynchronously',
    description: 'Answers 202 at once with the batch (status processing, items pending); poll GET /v1/batches/{id}. Capacity for dynamic items is checked first.',
  })
  @ApiAcceptedResponse({ type: BatchDto })
  create(@Auth() auth: AuthContext, @Body() body: CreateBatchDto) {
    return this.batches.create(auth, body);
  }

  @Get()
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'List batches', description: 'Newest first; items are left out (see GET /v1/batches/{id}).' })
  @ApiOkResponse({ type: BatchListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListBatchesQueryDto) {
    return this.batches.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'Retrieve a batch with its items' })
  @ApiOkResponse({ type: BatchDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.batches.retrieve(auth, id);
  }

  @Get(':id/download')
  @RequiresScope('qr:read')
  @ApiOperation({
    summary: 'Download the batch as a ZIP',
    description: 'Every completed item’s image (`<name-slug>-<id>.<ext>`) plus manifest.csv (id, name, short_url, status, error). 422 batch_processing while processing.',
  })
  @ApiProduces('application/zip')
  @ApiOkResponse({ description: 'A ZIP archive' })
  async download(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: BatchDownloadQueryDto, @Res() reply: FastifyReply) {
    const format = (query.format ?? 'svg') as 'svg' | 'png';
    const size = query.size === undefined ? 1000 : Number(query.size);
    if (!Number.isInteger(size) || size < 100 || size > 4000) throw ApiException.invalid('size', 'size must be an integer from 100 to 4000');
    const batch = await this.batches.find(auth, id);
    if (batch.status === 'processing') {
      throw new ApiException('batch_processing', 'The batch is still processing; download it once its status is completed');
    }
    const items = await this.batches.items(batch);
    const { archive } = createZip();
    void reply
      .header('Content-Type', 'application/zip')
      .header('Content-Disposition', `attachment; filename="${batch.id}.zip"`)
      .header('Cache-Control', 'private, no-cache')
      .send(archive);
    try {
      let manifest = csvRow(['id', 'name', 'short_url', 'status', 'error']);
      for (const item of items) {
        if (item.status !== 'completed') {
          manifest += csvRow(['', item.name, '', item.status, item.error]);
          continue;
        }
        let code: Record<string, unknown>;
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
        archive.append(typeof file.body === 'string' ? file.body : file.body, { name: `${slug(String(code.name), 'code')}-${code.id}.${format}` });
        manifest += csvRow([code.id, code.name, code.short_url, 'completed', '']);
      }
      archive.append(manifest, { name: 'manifest.csv' });
      await archive.finalize();
    } catch (err) {
      this.logger.error(`batch ${batch.id} download failed: ${(err as Error).message}`);
      archive.destroy(err as Error);
    }
  }
}
