import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, MaxLength } from 'class-validator';
import { ListEnvelopeDto } from '../../common/http/list';
import { IsOmittable, NotBlank } from '../../common/errors/validation';

export class FolderBodyDto {
  @ApiProperty({ maxLength: 255, example: 'Spring campaign' })
  @IsString({ message: 'name must be a string' }) @Length(1, 255, { message: 'name must be 1 to 255 characters' }) @NotBlank()
  name!: string;
}

export class FolderDto {
  @ApiProperty({ example: 'fld_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['folder'] }) object!: 'folder';
  @ApiProperty({ example: 'Spring campaign' }) name!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class FolderListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [FolderDto] }) data!: FolderDto[];
}

export class DeletedFolderDto {
  @ApiProperty({ example: 'fld_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['folder'] }) object!: 'folder';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class ListFoldersQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOmittable() @IsString() @MaxLength(1024) cursor?: string;
}
