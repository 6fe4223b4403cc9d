import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { ListEnvelopeDto } from '../../common/http/list';
import { EVENT_TYPES } from './event-types';
import { IsOmittable } from '../../common/errors/validation';

export class EventDto {
  @ApiProperty({ example: 'evt_7Hq2mLx9PbR4tKc1VnZs' }) id!: string;
  @ApiProperty({ enum: ['event'], example: 'event' }) object!: 'event';
  @ApiProperty({ enum: EVENT_TYPES, example: 'qr.updated' }) type!: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T14:03:07.512Z', description: 'UTC, with milliseconds' })
  created_at!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'qr.* → the QR code object; batch.* → the batch without items; qr.scanned → {qr_code_id, scanned_at, country, city, device, os, browser, referrer, language}; lead.captured → the form fields and an optional scan_context (docs/webhooks.md); ping → {webhook_endpoint_id}',
    example: { webhook_endpoint_id: 'we_3kD8sQ1vXn5LmR7pTb2Y' },
  })
  data!: Record<string, unknown>;
}

export class EventListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [EventDto] }) data!: EventDto[];
}

export class ListEventsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page' }) @IsOmittable() @IsString() @MaxLength(1024) cursor?: string;
  @ApiPropertyOptional({ enum: EVENT_TYPES, description: 'Only events of this type' })
  @IsOmittable()
  @IsIn(EVENT_TYPES, { message: `type must be one of: ${EVENT_TYPES.join(', ')}` })
  type?: string;
}
