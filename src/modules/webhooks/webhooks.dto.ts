import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { ListEnvelopeDto } from '../../common/http/list';
import { EVENT_TYPES } from '../events/event-types';
import { DELIVERY_STATUSES } from './webhook-delivery.entity';
import { ENDPOINT_SOURCES, ENDPOINT_STATUSES } from './webhook-endpoint.entity';
import { IsOmittable } from '../../common/errors/validation';

export const SUBSCRIBABLE = ['*', ...EVENT_TYPES] as const;
const eventsMessage = `events must be a non-empty array of event types (${EVENT_TYPES.join(', ')}) or ["*"]`;

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://example.com/hooks/scanlink', maxLength: 2048, description: 'https only; no private, loopback or link-local targets' })
  @IsString({ message: 'url must be a string' })
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  url!: string;

  @ApiProperty({ type: [String], enum: SUBSCRIBABLE, example: ['qr.created', 'qr.scanned'], description: 'Event types, or ["*"] for all' })
  @IsArray({ message: eventsMessage })
  @ArrayNotEmpty({ message: eventsMessage })
  @ArrayMaxSize(100, { message: 'events may list at most 100 entries (duplicates are dropped)' })
  @IsIn(SUBSCRIBABLE, { each: true, message: eventsMessage })
  events!: string[];

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Order system', maxLength: 500 })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString({ message: 'description must be a string or null' })
  @MaxLength(500, { message: 'description must be at most 500 characters' })
  description?: string | null;

  @ApiPropertyOptional({ enum: ENDPOINT_SOURCES, default: 'api', description: 'Who registered the endpoint: the API directly, or an integration platform on the workspace\'s behalf' })
  @IsOmittable()
  @IsIn(ENDPOINT_SOURCES, { message: `source must be one of: ${ENDPOINT_SOURCES.join(', ')}` })
  source?: (typeof ENDPOINT_SOURCES)[number];
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ example: 'https://example.com/hooks/scanlink-v2', maxLength: 2048 })
  @IsOmittable()
  @IsString({ message: 'url must be a string' })
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: SUBSCRIBABLE, example: ['*'] })
  @IsOmittable()
  @IsArray({ message: eventsMessage })
  @ArrayNotEmpty({ message: eventsMessage })
  @ArrayMaxSize(100, { message: 'events may list at most 100 entries (duplicates are dropped)' })
  @IsIn(SUBSCRIBABLE, { each: true, message: eventsMessage })
  events?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Order system (v2)', maxLength: 500, description: 'null clears it' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString({ message: 'description must be a string or null' })
  @MaxLength(500, { message: 'description must be at most 500 characters' })
  description?: string | null;

  @ApiPropertyOptional({ enum: ['enabled', 'disabled'], description: '`enabled` re-enables a disabled or auto_disabled endpoint and resets consecutive_failures to 0' })
  @IsOmittable()
  @IsIn(['enabled', 'disabled'], { message: 'status must be enabled or disabled' })
  status?: 'enabled' | 'disabled';
}

export class WebhookEndpointDto {
  @ApiProperty({ example: 'we_3kD8sQ1vXn5LmR7pTb2Y' }) id!: string;
  @ApiProperty({ enum: ['webhook_endpoint'] }) object!: 'webhook_endpoint';
  @ApiProperty({ example: 'https://example.com/hooks/scanlink' }) url!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Order system' }) description!: string | null;
  @ApiProperty({ type: [String], example: ['qr.created', 'qr.scanned'] }) events!: string[];
  @ApiProperty({ enum: ENDPOINT_STATUSES, example: 'enabled' }) status!: string;
  @ApiProperty({ enum: ['manual', 'gone', 'sustained_failures'], nullable: true, example: null }) disabled_reason!: string | null;
  @ApiProperty({ enum: ENDPOINT_SOURCES, example: 'api' }) source!: string;
  @ApiProperty({ type: 'integer', example: 0, description: 'Failed attempts in a row; reset by a success or by re-enabling' }) consecutive_failures!: number;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class CreatedWebhookEndpointDto extends WebhookEndpointDto {
  @ApiProperty({ example: 'whsec_Xk29LmQ8vTn3RbW7pYc1Hs5DfG0aZe4J', description: 'Signing secret. Returned only in this response' })
  secret!: string;
}

export class WebhookEndpointListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [WebhookEndpointDto] }) data!: WebhookEndpointDto[];
}

export class DeletedWebhookEndpointDto {
  @ApiProperty({ example: 'we_3kD8sQ1vXn5LmR7pTb2Y' }) id!: string;
  @ApiProperty({ enum: ['webhook_endpoint'] }) object!: 'webhook_endpoint';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class WebhookSecretDto {
  @ApiProperty({ example: 'we_3kD8sQ1vXn5LmR7pTb2Y', description: 'The endpoint id' }) id!: string;
  @ApiProperty({ enum: ['webhook_endpoint_secret'] }) object!: 'webhook_endpoint_secret';
  @ApiProperty({ example: 'whsec_Xk29LmQ8vTn3RbW7pYc1Hs5DfG0aZe4J', description: 'The new secret, shown once' }) secret!: string;
  @ApiProperty({ format: 'date-time', description: 'Until then deliveries also carry a v1 signature made with the previous secret' })
  previous_secret_expires_at!: string;
}

export class WebhookDeliveryDto {
  @ApiProperty({ example: 'wd_9Pq4LsX2mVb7RtK1NcZ8' }) id!: string;
  @ApiProperty({ enum: ['webhook_delivery'] }) object!: 'webhook_delivery';
  @ApiProperty({ example: 'we_3kD8sQ1vXn5LmR7pTb2Y' }) endpoint_id!: string;
  @ApiProperty({ example: 'evt_7Hq2mLx9PbR4tKc1VnZs' }) event_id!: string;
  @ApiProperty({ enum: EVENT_TYPES, example: 'ping' }) event_type!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, example: 'succeeded' }) status!: string;
  @ApiProperty({ type: 'integer', example: 1, description: 'Attempts made so far (at most 7)' }) attempts!: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 200, description: 'HTTP status of the last attempt; null when no response' }) status_code!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'ok', description: 'First 2 KB of the last response body' }) response_body!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, example: 42 }) latency_ms!: number | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Why the last attempt failed' }) error!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'When the next attempt is due (pending/retrying only)' })
  next_attempt_at!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class WebhookDeliveryListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [WebhookDeliveryDto] }) data!: WebhookDeliveryDto[];
}

export class ListWebhooksQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page' }) @IsOmittable() @IsString() @MaxLength(1024) cursor?: string;
}

export class ListDeliveriesQueryDto extends ListWebhooksQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOmittable()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of: ${DELIVERY_STATUSES.join(', ')}` })
  status?: string;
}
