import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject, IsString, MaxLength } from 'class-validator';
import { ListEnvelopeDto } from '../../common/http/list';
import { IsOmittable } from '../../common/errors/validation';
import { DesignDto } from '../rendering/design.dto';
import { DownloadQueryDto } from '../qr-codes/dto/qr-code.dto';
import { TARGET_UNION } from '../qr-codes/dto/target-schemas';
import { CreateGs1QrCodeDto } from '../gs1/gs1.dto';
import { IsDesignField, IsTemplateIdField } from '../../common/http/code-body-fields';
import { LinkControlFields } from '../targets/link-controls';

export const MAX_BATCH_ITEMS = 1000;

/** `target` of a batch item that omits `type`: the type is inferred from the fields (docs/api.md, Batches). */
export class BatchItemInferredTargetDto {
  @ApiPropertyOptional({ example: 'https://example.com/t/1', description: 'A URL → url' }) destination?: string;
  @ApiPropertyOptional({ description: '→ text' }) text?: string;
  @ApiPropertyOptional({ description: '→ email' }) email?: string;
  @ApiPropertyOptional() subject?: string;
  @ApiPropertyOptional() message?: string;
  @ApiPropertyOptional() cc?: string;
  @ApiPropertyOptional() bcc?: string;
  @ApiPropertyOptional({ description: '→ sms' }) phone?: string;
  @ApiPropertyOptional({ description: '→ wifi' }) ssid?: string;
  @ApiPropertyOptional() password?: string;
  @ApiPropertyOptional({ enum: ['WPA', 'WEP', 'nopass'] }) encryption?: string;
  @ApiPropertyOptional({ description: 'With `start` → event' }) title?: string;
  @ApiPropertyOptional() location?: string;
  @ApiPropertyOptional({ format: 'date-time' }) start?: string;
  @ApiPropertyOptional({ format: 'date-time' }) end?: string;
  @ApiPropertyOptional({
    type: 'object',
    properties: Object.fromEntries(['source', 'medium', 'campaign', 'term', 'content'].map((k) => [k, { type: 'string' }])),
    description: 'UTM parameters (url items)',
  })
  utm?: Record<string, string>;
}

/** A standard batch item: the body of a standard POST /v1/qr-codes, without `design` and `template_id` (the batch's
 * apply to every item). Its link controls (`expires_at`, `max_scans`, `expired_url`, `password`) are documented and
 * checked as on single creation (LinkControlFields, parseLinkControls). */
export class BatchItemRequestDto extends LinkControlFields {
  @ApiProperty({
    description: 'As on single creation (the Target schemas); `type` may be omitted and is then inferred from the fields.',
    anyOf: [TARGET_UNION, { $ref: getSchemaPath(BatchItemInferredTargetDto) }],
    example: { type: 'url', destination: 'https://example.com/t/1' },
  })
  target!: Record<string, unknown>;
  @ApiPropertyOptional({ maxLength: 255, example: 'Table 1' }) name?: string;
  @ApiPropertyOptional({ enum: ['dynamic', 'static'], description: 'As on single creation; default dynamic' }) type?: 'dynamic' | 'static';
  @ApiPropertyOptional({ type: String, nullable: true, example: 'fld_4bX9kQ2mT7vLp1sZ8nYc' }) folder_id?: string | null;
  @ApiPropertyOptional({ type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 10 }) tags?: string[];
  @ApiPropertyOptional({ type: String, nullable: true, description: 'As on single creation (dynamic codes)' }) domain_id?: string | null;
}

@ApiExtraModels(BatchItemInferredTargetDto, BatchItemRequestDto, CreateGs1QrCodeDto)
export class CreateBatchDto {
  @ApiProperty({
    description:
      'Up to 1,000 items, each like a POST /v1/qr-codes body: a standard item (`target`, with `type` or inferred from the fields; `name`, `folder_id`, `tags`, `type` dynamic/static, `domain_id`, and the link controls `expires_at`, `max_scans`, `expired_url`, `password`) or a GS1 item (`type: "gs1"`, the body of a single GS1 creation, link controls `expires_at` and `expired_url` included). An item\'s own `design` or `template_id` is ignored.',
    example: [{ name: 'Table 1', target: { type: 'url', destination: 'https://example.com/t/1' } }],
    type: 'array',
    minItems: 1,
    maxItems: MAX_BATCH_ITEMS,
    items: { oneOf: [{ $ref: getSchemaPath(BatchItemRequestDto) }, { $ref: getSchemaPath(CreateGs1QrCodeDto) }] },
  })
  @IsArray({ message: 'items must be an array' })
  @ArrayMinSize(1, { message: 'items must have at least 1 item' })
  @ArrayMaxSize(MAX_BATCH_ITEMS, { message: `items must have at most ${MAX_BATCH_ITEMS} items` })
  @IsObject({ each: true, message: 'each item must be an object' })
  items!: Record<string, unknown>[];

  @ApiPropertyOptional({ type: DesignDto, nullable: true, description: 'Applied to every item (a per-item design is ignored)' })
  @IsDesignField({ nullable: true })
  design?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'tpl_4bX9kQ2mT7vLp1sZ8nYc',
    description: 'A design template (tpl_…) copied into every item; `design` beside it overrides it field by field. Unknown → 404.',
  })
  @IsTemplateIdField()
  template_id?: string | null;
}

export class BatchItemDto {
  @ApiProperty({ type: String, example: 'Table 1', description: "The item's name; for an item sent without one, its code's name once created (`Campaign <short_code>`), '' before that or when it failed" })
  name!: string;
  @ApiProperty({ type: String, example: 'url', description: "The item's type; '' when the item failed before its type was known" })
  type!: string;
  @ApiProperty({ enum: ['pending', 'completed', 'failed'] }) status!: string;
  @ApiProperty({ type: String, nullable: true, description: 'Set once the item is created' }) qr_code_id!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the item failed' }) error!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Set for GS1 refusals' }) gs1_code!: string | null;
}

/** A batch without its items: the `data` of batch.completed and batch.failed events. */
export class BatchSummaryDto {
  @ApiProperty({ example: 'batch_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['batch'] }) object!: 'batch';
  @ApiProperty({ enum: ['processing', 'completed', 'failed'] }) status!: string;
  @ApiProperty({ type: 'integer' }) total_count!: number;
  @ApiProperty({ type: 'integer' }) completed_count!: number;
  @ApiProperty({ type: 'integer' }) error_count!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class BatchDto extends BatchSummaryDto {
  @ApiProperty({ type: [BatchItemDto] }) items!: BatchItemDto[];
}

export class BatchListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [BatchDto], description: 'Full Batch objects, items included' }) data!: BatchDto[];
}

export class ListBatchesQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOmittable() @IsString() @MaxLength(1024) cursor?: string;
}

/** A batch's ZIP takes the same `format` and `size` as one code's download. */
export class BatchDownloadQueryDto extends DownloadQueryDto {}
