import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { TARGET_UNION } from './target-schemas';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { IsOmittable, NotBlank } from '../../../common/errors/validation';
import { DESIGN_EXAMPLE, DesignDto } from '../../rendering/design.dto';
import { Gs1PatchFields } from '../../gs1/gs1.dto';
import { LinkControlFields } from '../../targets/link-controls';
import { IsDesignField, IsFolderIdField, IsTagsField, IsTemplateIdField } from '../../../common/http/code-body-fields';

export const QR_SORTS = ['created_at', 'updated_at', 'name', 'scan_count', 'deleted_at'] as const;
export const QR_STATUSES = ['active', 'inactive', 'all', 'trashed', 'paused'] as const;

export class CreateQrCodeDto extends LinkControlFields {
  @ApiProperty({
    description: 'What the code points at; `target.type` selects the fields (see the Target schemas).',
    ...TARGET_UNION,
    example: { type: 'url', destination: 'https://example.com/menu', utm: { source: 'qr', campaign: 'spring' } },
  })
  @IsObject({ message: 'target must be an object' })
  target!: Record<string, unknown>;

  @ApiPropertyOptional({ maxLength: 255, example: 'Spring menu', description: 'Default: `Campaign <code>` (dynamic) or `Static <code>` (static)' })
  @IsOmittable() @IsString() @Length(1, 255) @NotBlank()
  name?: string;

  @ApiPropertyOptional({
    enum: ['dynamic', 'static'],
    description: 'Honoured for url, text, email, sms, wifi, event, vcard and location; other types are dynamic only. Default dynamic.',
  })
  @IsOmittable() @IsIn(['dynamic', 'static'], { message: "type must be 'dynamic' or 'static'" })
  type?: 'dynamic' | 'static';

  @ApiPropertyOptional({ type: DesignDto, description: 'Design of the image (docs/design.md); omitted fields take their defaults', example: DESIGN_EXAMPLE })
  @IsDesignField()
  design?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'tpl_4bX9kQ2mT7vLp1sZ8nYc',
    description: 'A design template (tpl_…) whose design is copied into the code; `design` beside it overrides it field by field. Later edits of the template change no code.',
  })
  @IsTemplateIdField()
  template_id?: string | null;

  @ApiPropertyOptional({ type: String, example: 'fld_4bX9kQ2mT7vLp1sZ8nYc', nullable: true })
  @IsFolderIdField()
  folder_id?: string | null;

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 10, example: ['spring', 'menu'], description: 'Max 10, each max 50 characters; trimmed, duplicates removed' })
  @IsTagsField()
  tags?: string[];

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'dom_3kD8sQ1vXn5LmR7pTb2Y',
    description:
      'Dynamic codes: the verified custom domain (`dom_…`) whose host the scan URL uses. Omitted: the primary domain when one is set; ' +
      'null: the default scan host. Unknown or another workspace\'s → 404; not verified → 422 domain_not_verified. Static codes take no domain.',
  })
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString({ message: 'domain_id must be a dom_… id or null' }) @MaxLength(64, { message: 'domain_id must be a dom_… id or null' })
  domain_id?: string | null;
}

export class UpdateQrCodeDto extends Gs1PatchFields {
  @ApiPropertyOptional({ maxLength: 255 })
  @IsOmittable() @IsString() @Length(1, 255) @NotBlank()
  name?: string;

  @ApiPropertyOptional({
    description: 'Fields to change in the target (dynamic, non-page-holding codes only), named as in the Target schemas of the code\'s type. Omitted fields keep their value.',
    type: 'object',
    additionalProperties: true,
    example: { destination: 'https://example.com/summer-menu' },
  })
  @IsOmittable() @IsObject({ message: 'target must be an object' })
  target?: Record<string, unknown>;

  @ApiPropertyOptional({ type: DesignDto, description: 'Design fields to change, merged over the stored design; re-renders the stored image' })
  @IsDesignField()
  design?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'A fld_… id, or null to take the code out of its folder' })
  @IsFolderIdField()
  folder_id?: string | null;

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 10 })
  @IsTagsField()
  tags?: string[];

  @ApiPropertyOptional({ description: 'Dynamic codes only' })
  @IsOmittable() @IsBoolean({ message: 'is_active must be a boolean' })
  is_active?: boolean;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Cannot change after creation: only the current value is accepted' })
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString()
  domain_id?: string | null;
}

export class ListQrCodesQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString()
  limit?: string;
  @ApiPropertyOptional({ description: 'Opaque, from next_cursor' }) @IsOmittable() @IsString() @MaxLength(1024)
  cursor?: string;
  @ApiPropertyOptional({ enum: ['dynamic', 'static', 'all'], default: 'all' })
  @IsOmittable() @IsIn(['dynamic', 'static', 'all'], { message: 'kind must be one of dynamic, static, all' })
  kind?: string;
  @ApiPropertyOptional() @IsOmittable() @IsString() @Matches(/^fld_[0-9A-Za-z]+$/, { message: 'folder_id must be a fld_… id' })
  folder_id?: string;
  @ApiPropertyOptional({ enum: QR_STATUSES, default: 'all' })
  @IsOmittable() @IsIn(QR_STATUSES, { message: `status must be one of ${QR_STATUSES.join(', ')}` })
  status?: string;
  @ApiPropertyOptional({ enum: QR_SORTS, default: 'created_at' })
  @IsOmittable() @IsIn(QR_SORTS, { message: `sort must be one of ${QR_SORTS.join(', ')}` })
  sort?: string;
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @IsOmittable() @IsIn(['asc', 'desc'], { message: 'order must be asc or desc' })
  order?: string;
  @ApiPropertyOptional({ description: 'Case-insensitive search in names', maxLength: 255 }) @IsOmittable() @IsString() @MaxLength(255)
  search?: string;
  @ApiPropertyOptional({ description: 'Only codes carrying this tag (exact, case-sensitive, as stored)', maxLength: 100 })
  @IsOmittable() @IsString() @MaxLength(100)
  tag?: string;
  @ApiPropertyOptional({ description: 'Only codes of this target type (`url`, `wifi`, `vcard`, …)', maxLength: 32 })
  @IsOmittable() @IsString() @MaxLength(32)
  type?: string;
}

export class DownloadQueryDto {
  @ApiPropertyOptional({ enum: ['svg', 'png', 'webp', 'pdf'], default: 'svg', description: 'svg and pdf are vectors; png and webp (lossless) are `size` pixels wide' })
  @IsOmittable() @IsIn(['svg', 'png', 'webp', 'pdf'], { message: 'format must be one of svg, png, webp, pdf' })
  format?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 100, maximum: 4000, default: 1000, description: 'Pixels: the PNG or WebP width (a frame makes the image taller), ignored for svg and pdf (vectors)' })
  @IsOmittable() @Matches(/^\d+$/, { message: 'size must be an integer from 100 to 4000' })
  size?: string;
  @ApiPropertyOptional({ type: 'number', minimum: 10, maximum: 1000, default: 50, description: 'pdf: the printed width in millimetres of the symbol with its quiet zone (a frame adds to it)' })
  @IsOmittable() @IsString({ message: 'print_mm must be a number from 10 to 1000 (millimetres)' })
  print_mm?: string;
}

/** `POST /v1/qr-codes/preview`: the parts of a creation body that decide the image. */
export class PreviewQrCodeDto {
  @ApiPropertyOptional({ enum: ['dynamic', 'static'], description: 'Default dynamic: the image encodes a placeholder short URL of the real length on the host a new code would get' })
  @IsOmittable() @IsIn(['dynamic', 'static'], { message: "type must be 'dynamic' or 'static'" })
  type?: 'dynamic' | 'static';

  @ApiPropertyOptional({
    description: 'As on creation, validated the same way. Required for static codes; a dynamic preview without it draws a URL code.',
    ...TARGET_UNION,
    example: { type: 'url', destination: 'https://example.com/menu' },
  })
  @IsOmittable() @IsObject({ message: 'target must be an object' })
  target?: Record<string, unknown>;

  @ApiPropertyOptional({ type: DesignDto, description: 'As on creation (logos may be data: URLs); merged over the template when template_id is given' })
  @IsDesignField()
  design?: Record<string, unknown>;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'tpl_4bX9kQ2mT7vLp1sZ8nYc' })
  @IsTemplateIdField()
  template_id?: string | null;
}

export class PreviewQueryDto {
  @ApiPropertyOptional({ enum: ['svg', 'png', 'webp'], default: 'svg' })
  @IsOmittable() @IsIn(['svg', 'png', 'webp'], { message: 'format must be one of svg, png, webp' })
  format?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 100, maximum: 4000, default: 1000, description: 'Pixels: the longest side of a PNG or WebP, the SVG width' })
  @IsOmittable() @Matches(/^\d+$/, { message: 'size must be an integer from 100 to 4000' })
  size?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'], default: 'false', description: 'true: answer the scannability report (JSON) instead of the image' })
  @IsOmittable() @IsIn(['true', 'false'], { message: 'check must be true or false' })
  check?: string;
}
