import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, MaxLength } from 'class-validator';
import { IsOmittable } from '../../common/errors/validation';
import { ListEnvelopeDto } from '../../common/http/list';
import { DOMAIN_STATUSES } from './domain.entity';

export class CreateDomainDto {
  @ApiProperty({
    example: 'go.acme.example',
    description: 'Lower-cased and converted to punycode (IDNA); at least two labels; no IP addresses, ports or paths; not one of the service\'s own hosts',
  })
  @IsString({ message: 'hostname must be a string' })
  @MaxLength(1000, { message: 'hostname must be at most 253 characters' })
  hostname!: string;
}

export class UpdateDomainDto {
  @ApiPropertyOptional({
    description: '`true` makes this verified domain the workspace\'s primary one (the previous primary loses the flag); `false` clears it',
  })
  @IsOmittable()
  @IsBoolean({ message: 'primary must be a boolean' })
  primary?: boolean;
}

export class ListDomainsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page' }) @IsOmittable() @IsString() @MaxLength(1024) cursor?: string;
}

export class DomainVerificationDto {
  @ApiProperty({ enum: ['TXT'] }) type!: 'TXT';
  @ApiProperty({ example: '_scanlink-challenge.go.acme.example', description: 'Where to publish the record' }) name!: string;
  @ApiProperty({ example: 'scanlink-verify=9xQ2mLp4sT1vZ8nYcB3kD7wR5hJ6fG0a', description: 'The record\'s exact value' }) value!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'not_found',
    description:
      'Why the last check did not verify: `not_found` (no TXT record with the value), a failed DNS lookup (`timeout`, `refused`, `servfail`, ' +
      '`lookup_failed`: the record may exist, try again), `taken` (another workspace verified the host name first), `expired` (7 days pending ' +
      'without a completed check); null once verified or before the first check',
  })
  last_error!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'When the TXT record was last looked up' })
  last_checked_at!: string | null;
}

export class DomainDto {
  @ApiProperty({ example: 'dom_3kD8sQ1vXn5LmR7pTb2Y' }) id!: string;
  @ApiProperty({ enum: ['domain'] }) object!: 'domain';
  @ApiProperty({ example: 'go.acme.example', description: 'Lower case, punycode' }) hostname!: string;
  @ApiProperty({
    enum: DOMAIN_STATUSES,
    example: 'pending',
    description:
      '`pending` until the TXT record is found; `failed` after 7 days without it (a verify call can still succeed), or when another workspace ' +
      'verified the host name first (`verification.last_error: taken`)',
  })
  status!: string;
  @ApiProperty({ example: false, description: 'The workspace\'s default host for new dynamic codes' }) primary!: boolean;
  @ApiProperty({ type: DomainVerificationDto }) verification!: DomainVerificationDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null }) verified_at!: string | null;
}

export class DomainListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [DomainDto] }) data!: DomainDto[];
}

export class DeletedDomainDto {
  @ApiProperty({ example: 'dom_3kD8sQ1vXn5LmR7pTb2Y' }) id!: string;
  @ApiProperty({ enum: ['domain'] }) object!: 'domain';
  @ApiProperty({ enum: [true] }) deleted!: true;
}
