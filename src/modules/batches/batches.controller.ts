import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresPlanFeature, RequiresScope } from '../../common/auth/decorators';
import { parseImageRequest } from '../rendering/image-request';
import { BatchDownloadService } from './batch-download.service';
import { BatchDownloadQueryDto, BatchDto, BatchListDto, CreateBatchDto, ListBatchesQueryDto } from './batches.dto';
import { BatchesService } from './batches.service';
import { binaryContent, ZIP_CONTENT_TYPE } from '../rendering/download-formats';

@ApiTags('Batches')
@Controller('batches')
export class BatchesController {
  constructor(
    private readonly batches: BatchesService,
    private readonly downloads: BatchDownloadService,
  ) {}

  @Post()
  @HttpCode(202)
  @RequiresScope('qr:write')
  @RequiresPlanFeature('batches')
  @ApiOperation({
    summary: 'Create up to 1,000 codes asynchronously',
    description: 'Answers 202 at once with the batch (status processing, items pending); poll GET /v1/batches/{id}. Capacity for dynamic items is checked first.',
  })
  @ApiBody({
    type: CreateBatchDto,
    examples: {
      urls: {
        summary: 'Three table codes',
        value: { items: [1, 2, 3].map((n) => ({ name: `Table ${n}`, target: { type: 'url', destination: `https://example.com/t/${n}` } })) },
      },
      mixed: {
        summary: 'Inferred types, a static code and a design for all',
        value: {
          items: [
            { name: 'Wi-Fi', type: 'static', target: { ssid: 'Cafe', password: 'espresso42', encryption: 'WPA' } },
            { name: 'Call us', target: { phone: '+15551234567', message: 'Table booking' } },
            { name: 'Menu', target: { destination: 'https://example.com/menu' }, tags: ['menu'] },
          ],
          design: { colors: { foreground: '#1a237e', background: '#ffffff' } },
        },
      },
      link_controls: {
        summary: 'Items with link controls (expiry, scan limit, expired redirect, password)',
        value: {
          items: [
            { name: 'Launch offer', target: { type: 'url', destination: 'https://example.com/offer' }, expires_at: '2030-12-31T23:59:59Z', max_scans: 1000, expired_url: 'https://example.com/offer-ended' },
            { name: 'Staff menu', target: { type: 'url', destination: 'https://example.com/staff' }, password: 'open sesame' },
          ],
        },
      },
    },
  })
  @ApiAcceptedResponse({ type: BatchDto })
  create(@Auth() auth: AuthContext, @Body() body: CreateBatchDto): Promise<BatchDto> {
    return this.batches.create(auth, body);
  }

  @Get()
  @RequiresScope('qr:read')
  @RequiresPlanFeature('batches')
  @ApiOperation({ summary: 'List batches', description: 'Newest first; full Batch objects, items included.' })
  @ApiOkResponse({ type: BatchListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListBatchesQueryDto): Promise<BatchListDto> {
    return this.batches.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('qr:read')
  @RequiresPlanFeature('batches')
  @ApiOperation({ summary: 'Retrieve a batch with its items' })
  @ApiOkResponse({ type: BatchDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<BatchDto> {
    return this.batches.retrieve(auth, id);
  }

  @Get(':id/download')
  @RequiresScope('qr:read')
  @RequiresPlanFeature('batches')
  @ApiOperation({
    summary: 'Download the batch as a ZIP',
    description: 'Every completed item’s image (`<name-slug>-<id>.<ext>`; PNGs stored, SVGs deflated; `size` sizes PNGs and is ignored for SVG) plus manifest.csv (id, name, short_url, status, error). Streamed: images are drawn one at a time as the client reads. 422 batch_processing while processing.',
  })
  @ApiProduces(ZIP_CONTENT_TYPE)
  @ApiOkResponse({ description: 'A ZIP archive, as an attachment (`Content-Disposition`)', content: binaryContent(ZIP_CONTENT_TYPE) })
  async download(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: BatchDownloadQueryDto, @Res() reply: FastifyReply) {
    const { filename, archive } = await this.downloads.open(auth, id, parseImageRequest(query, undefined, { svgSize: 'ignored' }));
    void reply
      .header('Content-Type', ZIP_CONTENT_TYPE)
      .header('Content-Disposition', `attachment; filename="${filename}"`)
      .header('Cache-Control', 'private, no-cache')
      .send(archive);
  }
}
