import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsString, Matches, MaxLength } from 'class-validator';
import { IsOmittable } from '../../common/errors/validation';
import { ListEnvelopeDto } from '../../common/http/list';

export class AuditActorDto {
  @ApiProperty({ enum: ['user', 'api_key', 'system'] }) type!: 'user' | 'api_key' | 'system';
  @ApiProperty({ example: 'usr_4bX9kQ2mT7vLp1sZ8nYc', description: 'usr_… for a member, key_… for an API key, `cli` or `system` otherwise' }) id!: string;
  @ApiPropertyOptional({ type: String, nullable: true, example: 'ana@example.com' }) email?: string | null;
}

export class AuditResourceDto {
  @ApiProperty({ example: 'qr_code' }) type!: string;
  @ApiProperty({ example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
}

export class AuditEntryDto {
  @ApiProperty({ example: 'aud_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['audit_log_entry'] }) object!: 'audit_log_entry';
  @ApiProperty({ type: AuditActorDto }) actor!: AuditActorDto;
  @ApiProperty({ example: 'qr_code.updated' }) action!: string;
  @ApiProperty({ type: AuditResourceDto }) resource!: AuditResourceDto;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: {} },
    example: { target: [{ type: 'url', destination: 'https://a.example' }, { type: 'url', destination: 'https://b.example' }] },
    description: 'Changed fields: [before, after]; secrets and passwords as "[redacted]"',
  })
  changes!: Record<string, [unknown, unknown]>;
  @ApiProperty({ type: String, nullable: true, example: 'req_4bX9kQ2mT7vLp1sZ8nYc' }) request_id!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) ip_country!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
}

export class AuditLogListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [AuditEntryDto] }) data!: AuditEntryDto[];
}

export class AuditLogQueryDto {
  @ApiPropertyOptional({ description: 'Only changes of this resource (qr_…, key_…, mem_…)' })
  @IsOmittable() @IsString() @MaxLength(100)
  resource_id?: string;

  @ApiPropertyOptional({ description: 'Only changes by this actor (usr_…, key_…, cli, system)' })
  @IsOmittable() @IsString() @MaxLength(100)
  actor_id?: string;

  @ApiPropertyOptional({ example: 'qr_code.updated' })
  @IsOmittable() @IsString() @Matches(/^[a-z_]+\.[a-z_]+$/, { message: 'action must look like qr_code.updated' })
  action?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'From this moment (inclusive)' })
  @IsOmittable() @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date-time' })
  from?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Before this moment (exclusive)' })
  @IsOmittable() @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date-time' })
  to?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 })
  @IsOmittable() @Matches(/^\d+$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @ApiPropertyOptional() @IsOmittable() @IsString()
  cursor?: string;
}
