import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { IsOmittable } from '../../../common/errors/validation';
import { ListEnvelopeDto } from '../../../common/http/list';

export class TagDto {
  @ApiProperty({ enum: ['tag'] }) object!: 'tag';
  @ApiProperty({ example: 'spring', description: 'The tag, exactly as stored on the codes (pass it as `tag` to `GET /v1/qr-codes`)' }) name!: string;
  @ApiProperty({ type: 'integer', example: 12, description: 'Live codes of this environment carrying the tag' }) qr_code_count!: number;
}

export class TagListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [TagDto] }) data!: TagDto[];
}

export class ListTagsQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOmittable() @IsString() @MaxLength(1024) cursor?: string;
}
