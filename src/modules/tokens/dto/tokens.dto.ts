import { ListEnvelopeDto } from '../../../common/http/list';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMinSize, ArrayUnique, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Max, Min, Matches, ValidateIf } from 'class-validator';
import { SCOPES } from '../../../common/auth/scopes';
import { IsOmittable } from '../../../common/errors/validation';

export class CreateTokenDto {
  @ApiProperty({ example: 'Zapier integration', maxLength: 255 })
  @IsString() @Length(1, 255)
  name!: string;

  @ApiProperty({ enum: SCOPES, isArray: true, example: ['qr:read', 'qr:write'] })
  @IsArray() @ArrayMinSize(1) @ArrayUnique() @IsIn(SCOPES, { each: true, message: `each value in scopes must be one of ${SCOPES.join(', ')}` })
  scopes!: string[];

  @ApiPropertyOptional({ type: 'integer', nullable: true, example: 90, minimum: 0, maximum: 3650, description: 'The key expires this many days after creation; null or absent: it does not expire' })
  @IsOptional() @ValidateIf((_o, v) => v !== null) @IsInt() @Min(0) @Max(3650)
  expires_in_days?: number | null;

  @ApiPropertyOptional({ enum: ['live', 'test'], default: 'live' })
  @IsOmittable() @IsIn(['live', 'test'])
  environment?: 'live' | 'test';
}

export class RotateTokenDto {
  @ApiProperty({ example: 'key_4bX9kQ2mT7vLp1sZ8nYc' })
  @IsString() @Matches(/^key_[0-9A-Za-z]+$/, { message: 'key_id must be a key_… id' })
  key_id!: string;
}

export class ApiKeyDto {
  @ApiProperty({ example: 'key_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['api_key'] }) object!: 'api_key';
  @ApiProperty({ example: 'Zapier integration' }) name!: string;
  @ApiProperty({ example: 'qr_live_AbCd' }) key_prefix!: string;
  @ApiProperty({ enum: SCOPES, isArray: true }) scopes!: string[];
  @ApiProperty({ enum: ['live', 'test'] }) environment!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) last_used_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revoked_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) created_at!: string;
}

export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ example: 'qr_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345', description: 'The full key. Shown once, never again.' })
  key!: string;
}

export class ListTokensQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 })
  @IsOmittable() @Matches(/^\d+$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @ApiPropertyOptional() @IsOmittable() @IsString()
  cursor?: string;
}

export class ApiKeyListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [ApiKeyDto] }) data!: ApiKeyDto[];
}
