import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiProduces, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { PAGE_CONTENT_SCHEMAS, TARGET_SCHEMAS } from './dto/target-schemas';
import type { FastifyReply } from 'fastify';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { ApiException } from '../../common/errors/api.exception';
import { CreateQrCodeDto, DownloadQueryDto, ListQrCodesQueryDto, PreviewQrCodeDto, PreviewQueryDto, UpdateQrCodeDto } from './dto/qr-code.dto';
import { DeletedQrCodeDto, QrCodeDto, QrCodeListDto, RuleTestBodyDto, RuleTestResultDto, ScannabilityReportDto } from './dto/qr-code-response.dto';
import { WithoutIdempotency } from '../../common/http/idempotency.interceptor';
import { QrCodesService } from './qr-codes.service';
import { parseCreateBody } from './dto/create-body';
import { CreateGs1QrCodeDto, Gs1TargetResponseDto } from '../gs1/gs1.dto';
import { NoBody } from '../../common/http/no-body';
import { parseImageRequest } from '../rendering/image-request';
import { CONTENT_TYPES, type ImageFormat } from '../rendering/rendering.service';

const PREVIEW_FORMATS = ['svg', 'png', 'webp'] as const;
/** OpenAPI `content` of an image answer: one binary (text for SVG) entry per media type. */
const imageContent = (formats: readonly ImageFormat[]) =>
  Object.fromEntries(formats.map((f) => [CONTENT_TYPES[f], { schema: f === 'svg' ? { type: 'string' } : { type: 'string', format: 'binary' } }]));

@ApiTags('QR codes')
@ApiExtraModels(...TARGET_SCHEMAS, ...PAGE_CONTENT_SCHEMAS, CreateQrCodeDto, CreateGs1QrCodeDto, Gs1TargetResponseDto, ScannabilityReportDto)
@Controller('qr-codes')
export class QrCodesController {
  constructor(private readonly qrCodes: QrCodesService) {}

  @Post()
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Create a QR code',
    description:
      'Dynamic codes encode a short scan URL and count against the plan limit; static codes encode their payload directly. ' +
      'A GS1 Digital Link body (`type: "gs1"`) encodes `https://<host>/01/<gtin14>/…`: dynamic ones are resolved by the ' +
      'scan host and count against the separate GS1 limit; static ones point at your own resolver (`domain`) and are uncapped. ' +
      'The SVG image is rendered and stored on creation. `type` defaults to `dynamic` for every target type, Wi-Fi ' +
      'included: a dynamic Wi-Fi code opens a hosted page showing the network name and password (editable later, ' +
      'counted in analytics), while a static one (`"type": "static"`) encodes `WIFI:…` so the phone offers its own ' +
      '"Join network" prompt but can never be changed. Choose static for Wi-Fi codes meant to join a network in one tap. ' +
      'A dynamic code lives on the workspace\'s primary custom domain when one is set, on another verified domain named by ' +
      '`domain_id`, or on the default scan host with `domain_id: null`.',
  })
  @ApiBody({
    description: 'A standard body (`target`), or a GS1 Digital Link body when `type` is `gs1` (docs/gs1.md).',
    schema: { oneOf: [{ $ref: getSchemaPath(CreateQrCodeDto) }, { $ref: getSchemaPath(CreateGs1QrCodeDto) }] },
    examples: {
      url: { value: { target: { type: 'url', destination: 'https://example.com/menu' }, name: 'Spring menu' } },
      gs1: {
        value: {
          type: 'gs1',
          mode: 'dynamic',
          name: 'Crew neck T-shirt',
          primary_key: { ai: '01', value: '09506000134352' },
          qualifiers: [{ ai: '10', value: 'LOT42' }],
          destination: 'https://brand.example/product',
          links: [{ linkType: 'gs1:pip', href: 'https://brand.example/en/product', hreflang: ['en'] }],
        },
      },
      gs1_static: { value: { type: 'gs1', mode: 'static', primary_key: { ai: '01', value: '9506000134352' }, domain: 'id.brand.example' } },
      smarturl: {
        summary: 'A smart URL: rules pick each scan\'s destination (docs/smart-urls.md)',
        value: {
          name: 'Spring campaign',
          target: {
            type: 'smarturl',
            default_url: 'https://example.com/',
            rules: [
              { name: 'French speakers in France', if: { country: ['FR'], language: ['fr'] }, then: { destination: 'https://example.com/fr' } },
              {
                name: 'Office hours in Paris',
                if: { time: { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '18:00', timezone: 'Europe/Paris' } },
                then: { destination: 'https://example.com/call-us' },
              },
              { name: 'A/B on mobile', if: { device: ['mobile'] }, then: { split: [{ destination: 'https://example.com/a', weight: 50 }, { destination: 'https://example.com/b', weight: 50 }] } },
            ],
          },
        },
      },
      url_link_controls: {
        summary: 'A URL code with link controls: expiry, scan limit, expired redirect, password (docs/link-controls.md)',
        value: {
          name: 'Launch offer',
          target: { type: 'url', destination: 'https://example.com/offer' },
          expires_at: '2030-12-31T23:59:59Z',
          max_scans: 1000,
          expired_url: 'https://example.com/offer-ended',
          password: 'open sesame',
        },
      },
    },
  })
  @ApiCreatedResponse({ type: QrCodeDto })
  async create(@Auth() auth: AuthContext, @Body() body: Record<string, unknown>): Promise<QrCodeDto> {
    return this.qrCodes.create(auth, await parseCreateBody(body));
  }

  @Post('preview')
  @HttpCode(200)
  @RequiresScope('qr:read')
  @WithoutIdempotency()
  @ApiOperation({
    summary: 'Preview a code without creating it',
    description:
      'The image a code with this body would get (`format` svg, png or webp; `size` as on downloads), or with `check=true` a scannability report. ' +
      'Validated exactly as creation (same errors); nothing is stored or counted against a plan limit. Dynamic bodies encode a placeholder short URL of the real length.',
  })
  @ApiProduces('image/svg+xml', 'image/png', 'image/webp', 'application/json')
  @ApiOkResponse({
    description: 'The image bytes; with check=true, the scannability report (JSON)',
    content: { ...imageContent(PREVIEW_FORMATS), 'application/json': { schema: { $ref: getSchemaPath(ScannabilityReportDto) } } },
  })
  async preview(@Auth() auth: AuthContext, @Body() body: PreviewQrCodeDto, @Query() query: PreviewQueryDto, @Res() reply: FastifyReply) {
    const result = await this.qrCodes.preview(auth, body, parseImageRequest(query, PREVIEW_FORMATS), query.check === 'true');
    void reply.header('Cache-Control', 'no-store');
    if ('report' in result) await reply.send(result.report);
    else await reply.header('Content-Type', result.contentType).send(result.body);
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
      '`target` on a page-holding code → 409 target_not_editable, nothing applied. Dynamic GS1 codes: top-level ' +
      '`destination`, `links`, `overrides` besides name, design, folder_id, tags, is_active; naming `primary_key`, ' +
      '`qualifiers`, `attributes`, `domain`, `domain_id`, `mode` or `gs1_key` → 422 gs1_identifier_immutable.',
  })
  @ApiBody({
    type: UpdateQrCodeDto,
    examples: {
      repoint: { summary: 'Re-point a dynamic link code', value: { target: { destination: 'https://example.com/summer-menu' } } },
      rename: { summary: 'Rename, file and tag', value: { name: 'Summer menu', folder_id: null, tags: ['summer'] } },
      pause: { summary: 'Deactivate a dynamic code (its scans answer 410)', value: { is_active: false } },
      design: { summary: 'Change the design (re-renders the image)', value: { design: { colors: { foreground: '#1a237e', background: '#ffffff' }, shapes: { body: 'dots' } } } },
      gs1: { summary: 'Re-point a dynamic GS1 code', value: { destination: 'https://brand.example/product-v2' } },
    },
  })
  @ApiOkResponse({ type: QrCodeDto })
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: UpdateQrCodeDto): Promise<QrCodeDto> {
    return this.qrCodes.update(auth, id, body);
  }

  @Put(':id/content')
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Replace the hosted content of a page-holding code',
    description:
      'The same fields as `target` at creation, minus `type`, for linkpage, review, form, menupage, appstores, file, audio, video and smarturl ' +
      'codes (a smart URL\'s `default_url` and `rules`: rules sent with their `id` keep it). Validated like a creation; the short URL and ' +
      'image never change; emits qr.updated, and the next scan on every scan process sees the new content. GS1, static and other codes → ' +
      '409 target_not_editable (PATCH edits them).',
  })
  @ApiBody({
    description:
      'The new content: the `target` fields of the code\'s type; `type` may be omitted (when sent it must be the code\'s own type). The shapes are `anyOf`: without `type` a body may fit several of them, and the code\'s type decides which applies.',
    schema: { anyOf: PAGE_CONTENT_SCHEMAS.map((s) => ({ $ref: getSchemaPath(s) })) },
    examples: {
      smarturl: {
        value: {
          type: 'smarturl',
          default_url: 'https://example.com',
          rules: [
            { id: 'rul_8fK2mN4pQ6rS1tU3vW5x', name: 'France', if: { country: ['FR'] }, then: { destination: 'https://example.com/fr' } },
            { name: 'A/B', then: { split: [{ destination: 'https://example.com/a', weight: 50 }, { destination: 'https://example.com/b', weight: 50 }] } },
          ],
        },
      },
      linkpage: { value: { type: 'linkpage', title: 'Find us online', description: 'Everything we do, one tap away.', links: [{ title: 'Shop', url: 'https://shop.example.com' }] } },
      review: {
        value: { type: 'review', review_page: { title: 'How did we do?', links: [{ platform: 'google', url: 'https://g.page/r/example/review' }], feedback_email: 'feedback@example.com' } },
      },
      form: {
        value: {
          type: 'form',
          title: 'Join our newsletter',
          fields: [
            { name: 'email', label: 'Your e-mail', type: 'email', required: true },
            { name: 'name', label: 'Your name' },
          ],
          consent_text: 'I agree to receive e-mails.',
        },
      },
      menupage: { value: { type: 'menupage', title: 'Menu', sections: [{ name: 'Coffee', items: [{ name: 'Espresso', price: '2.50' }, { name: 'Flat white', price: 3.2, description: 'Double shot, whole milk' }] }] } },
      appstores: {
        value: { type: 'appstores', ios_url: 'https://apps.apple.com/app/id123', android_url: 'https://play.google.com/store/apps/details?id=com.example', fallback_url: 'https://example.com/app' },
      },
      file: { summary: 'file, audio or video: another uploaded file', value: { type: 'file', file_id: 'file_7pQ2mX9sLk4VbR1tNc8Z', title: 'Our autumn menu', description: 'Tap the button to download it.' } },
      smarturl_without_type: {
        summary: 'A smart URL\'s new rules, without `type`',
        value: {
          default_url: 'https://example.com',
          rules: [{ id: 'rul_8fK2mN4pQ6rS1tU3vW5x', name: 'France', if: { country: ['FR'] }, then: { destination: 'https://example.com/fr-summer' } }],
        },
      },
    },
  })
  @ApiOkResponse({ type: QrCodeDto })
  replaceContent(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: Record<string, unknown> | undefined): Promise<QrCodeDto> {
    // No body at all is `{}`: the type's handler names the first missing field.
    if (body === undefined) body = {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ApiException.invalid(undefined, 'The body must be a JSON object');
    return this.qrCodes.replaceContent(auth, id, body);
  }

  @Post(':id/rules/test')
  @HttpCode(200)
  @RequiresScope('qr:read')
  @ApiOperation({
    summary: 'Test a smart URL\'s rules',
    description:
      'What a scan with these facts would get, decided by the same code as the scan host; nothing is counted or changed. ' +
      '`{rule_id, destination}` for a plain rule, `{rule_id, split, arm_candidates}` for a split, `{rule_id: null, destination: default_url}` ' +
      'when no rule matches. Omitted facts are unknown (conditions on them do not match); `at` defaults to now, `scan_number` to the next scan. ' +
      'Rules only: a paused, expired or password-protected code still shows what its rules would choose. A code that is not a smart URL → 422 rules_not_supported.',
  })
  @ApiBody({ type: RuleTestBodyDto, required: false, examples: { france: { value: { country: 'FR', device: 'mobile', language: 'fr-FR', at: '2026-06-01T09:30:00Z' } } } })
  @ApiOkResponse({ type: RuleTestResultDto })
  testRules(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    // No body at all: every fact unknown. A body of JSON `null` (or any non-object) is refused like elsewhere.
    if (body === undefined) body = {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ApiException.invalid(undefined, 'The body must be a JSON object');
    return this.qrCodes.testRules(auth, id, body);
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
  @ApiOperation({ summary: 'Restore a trashed or paused QR code', description: 'Keeps the id; re-checks the plan limit for dynamic codes. Emits `qr.restored`; a restore by a signed-in dashboard user also emits `qr.updated`. Restoring a live code answers it unchanged and emits nothing.' })
  @ApiOkResponse({ type: QrCodeDto })
  restore(@Auth() auth: AuthContext, @Param('id') id: string): Promise<QrCodeDto> {
    return this.qrCodes.restore(auth, id);
  }

  @Get(':id/download')
  @RequiresScope('qr:read')
  @ApiOperation({
    summary: 'Download the image',
    description:
      'Regenerated from the stored design. `format` svg (default), png, webp (lossless) or pdf (vector, for print); `size` 100–4000 px ' +
      '(default 1000; the width, ignored for pdf); `print_mm` 10–1000 (default 50): the printed width of a pdf\'s symbol with its quiet zone.',
  })
  @ApiProduces('image/svg+xml', 'image/png', 'image/webp', 'application/pdf')
  @ApiOkResponse({ description: 'The image bytes', content: imageContent(['svg', 'png', 'webp', 'pdf']) })
  async download(@Auth() auth: AuthContext, @Param('id') id: string, @Query() query: DownloadQueryDto, @Res() reply: FastifyReply) {
    const file = await this.qrCodes.download(auth, id, parseImageRequest(query));
    await reply
      .header('Content-Type', file.contentType)
      .header('Content-Disposition', `attachment; filename="${file.filename}"`)
      .header('Cache-Control', 'private, no-cache')
      .send(file.body);
  }
}
