import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsObject, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { ListEnvelopeDto } from '../../common/http/list';
import { IsOmittable } from '../../common/errors/validation';
import { DesignDto } from '../rendering/design.dto';
import { DEFAULT_DOWNLOAD_SIZE, DOWNLOAD_FORMAT_NAMES, MAX_DOWNLOAD_SIZE, MIN_DOWNLOAD_SIZE } from '../rendering/download-formats';

export const MAX_BATCH_ITEMS = 1000;

export class CreateBatchDto {
  @ApiProperty({
    description:
      'Up to 1,000 items, each like a POST /v1/qr-codes body: `target` (with `type`; when omitted it is inferred from the fields), `name`, `folder_id`, `tags`, and `type` (dynamic/static).',
    example: [{ name: 'Table 1', target: { type: 'url', destination: 'https://example.com/t/1' } }],
    type: 'array',
    items: { type: 'object' },
  })
  @IsArray({ message: 'items must be an array' })
  @ArrayMinSize(1, { message: 'items must have at least 1 item' })
  @ArrayMaxSize(MAX_BATCH_ITEMS, { message: `items must have at most ${MAX_BATCH_ITEMS} items` })
  @IsObject({ each: true, message: 'each item must be an object' })
  items!: Record<string, unknown>[];

  @ApiPropertyOptional({ type: DesignDto, nullable: true, description: 'Applied to every item (a per-item design is ignored)' })
  @IsOptional() @ValidateIf((_o, v) => v !== null) @IsObject({ message: 'design must be an object or null' })
  design?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'tpl_4bX9kQ2mT7vLp1sZ8nYc',
    description: 'A design template (tpl_…) copied into every item; `design` beside it overrides it field by field. Unknown → 404.',
  })
  @IsOptional() @ValidateIf((_o, v) => v !== null) @IsString({ message: 'template_id must be a tpl_… id or null' })
  template_id?: string | null;
}

export class BatchItemDto {
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'url' }) type!: string | null;
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
  @ApiProperty() total_count!: number;
  @ApiProperty() completed_count!: number;
  @ApiProperty() error_count!: number;
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

export class BatchDownloadQueryDto {
  @ApiPropertyOptional({ enum: DOWNLOAD_FORMAT_NAMES, default: 'svg' })
  @IsOmittable() @IsIn(DOWNLOAD_FORMAT_NAMES, { message: `format must be one of ${DOWNLOAD_FORMAT_NAMES.join(', ')}` })
  format?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: MIN_DOWNLOAD_SIZE, maximum: MAX_DOWNLOAD_SIZE, default: DEFAULT_DOWNLOAD_SIZE, description: 'Pixels (PNG width and height). Ignored for SVG.' })
  @IsOmittable() @IsString({ message: 'size must be an integer from 100 to 4000' })
  size?: string;
}
