import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { TARGET_SCHEMAS } from './dto/target-schemas';
import type { FastifyReply } from 'fastify';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { ApiException } from '../../common/errors/api.exception';
import { CreateQrCodeDto, DownloadQueryDto, ListQrCodesQueryDto, UpdateQrCodeDto } from './dto/qr-code.dto';
import { DeletedQrCodeDto, QrCodeDto, QrCodeListDto } from './dto/qr-code-response.dto';
import { QrCodesService } from './qr-codes.service';
import { NoBody } from '../../common/http/no-body';

@ApiTags('QR codes')
@ApiExtraModels(...TARGET_SCHEMAS)
@Controller('qr-codes')
export class QrCodesController {
  constructor(private readonly qrCodes: QrCodesService) {}

  @Post()
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Create a QR code',
    description:
      'Dynamic codes encode a short scan URL and count against the plan limit; static codes encode their payload directly. ' +
      'The SVG image is rendered and stored on creation. `type` defaults to `dynamic` for every target type, Wi-Fi ' +
      'included: a dynamic Wi-Fi code opens a hosted page showing the network name and password (editable later, ' +
      'counted in analytics), while a static one (`"type": "static"`) encodes `WIFI:…` so the phone offers its own ' +
      '"Join network" prompt but can never be changed. Choose static for Wi-Fi codes meant to join a network in one tap. ' +
      'A dynamic code lives on the workspace\'s primary custom domain when one is set, on another verified domain named by ' +
      '`domain_id`, or on the default scan host with `domain_id: null`.',
  })
  @ApiCreatedResponse({ type: QrCodeDto })
  create(@Auth() auth: AuthContext, @Body() body: CreateQrCodeDto): Promise<QrCodeDto> {
    return this.qrCodes.create(auth, body);
  }

  @Get()
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'List QR codes', description: 'Newest first by default; keyset cursor pagination for every sort.' })
  @ApiOkResponse({ type: QrCodeListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListQrCodesQueryDto): Promise<QrCodeListDto> {
    return this.qrCodes.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'Retrieve a QR code', description: '`qr_…` or `sqr_…`. Trashed and paused codes answer 404 (see the list with status=trashed).' })
  @ApiOkResponse({ type: QrCodeDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<QrCodeDto> {
    return this.qrCodes.retrieve(auth, id);
  }

  @Patch(':id')
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Update a QR code',
    description:
      'Dynamic codes: name, target fields, design, folder_id, tags, is_active. Static codes: name, folder_id, design. ' +
      '`target` on a page-holding code → 409 target_not_editable, nothing applied.',
  })
  @ApiOkResponse({ type: QrCodeDto })
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: UpdateQrCodeDto): Promise<QrCodeDto> {
    return this.qrCodes.update(auth, id, body);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ApiOperation({ summary: 'Move a QR code to the Trash', description: 'Trashed codes are removed permanently after 30 days.' })
  @ApiOkResponse({ type: DeletedQrCodeDto })
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DeletedQrCodeDto> {
    return this.qrCodes.remove(auth, id);
  }

  @Post(':id/restore')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ApiOperation({ summary: 'Restore a trashed or paused QR code', description: 'Keeps the id; re-checks the plan limit for dynamic codes.' })
  @ApiOkResponse({ type: QrCodeDto })
  restore(@Auth() auth: AuthContext, @Param('id') id: string): Promise<QrCodeDto> {
    return this.qrCodes.restore(auth, id);
  }

  @Get(':id/download')
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'Download the image', description: 'Regenerated from the stored design. `format` svg (default) or png; `size` 100–4000 px (default 1000).' })
  @ApiProduces('image/svg+xml', 'image/png')
  @ApiOkResponse({ description: 'The image bytes' })
  async download(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: DownloadQueryDto, @Res() reply: FastifyReply) {
    const format = (query.format ?? 'svg') as 'svg' | 'png';
    const size = query.size === undefined ? 1000 : Number(query.size);
    if (!Number.isInteger(size) || size < 100 || size > 4000) throw ApiException.invalid('size', 'size must be an integer from 100 to 4000');
    const file = await this.qrCodes.download(auth, id, format, size);
    await reply
      .header('Content-Type', file.contentType)
      .header('Content-Disposition', `attachment; filename="${file.filename}"`)
      .header('Cache-Control', 'private, no-cache')
      .send(file.body);
  }
}
