import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, Length, MaxLength } from 'class-validator';
import { IsOmittable, NotBlank } from '../../common/errors/validation';
import { ListEnvelopeDto } from '../../common/http/list';
import { DESIGN_EXAMPLE, DesignDto, DesignResponseDto } from '../rendering/design.dto';

export const MAX_TEMPLATES = 100;

export class CreateTemplateDto {
  @ApiProperty({ maxLength: 255, example: 'Brand blue' })
  @IsString({ message: 'name must be a string' }) @Length(1, 255, { message: 'name must be 1 to 255 characters' }) @NotBlank()
  name!: string;

  @ApiProperty({ type: DesignDto, description: 'Validated exactly as a code\'s design; omitted fields take their defaults', example: DESIGN_EXAMPLE })
  @IsObject({ message: 'design must be an object' })
  design!: Record<string, unknown>;
}

export class UpdateTemplateDto {
  @ApiPropertyOptional({ maxLength: 255, example: 'Brand blue (2027)' })
  @IsOmittable() @IsString({ message: 'name must be a string' }) @Length(1, 255, { message: 'name must be 1 to 255 characters' }) @NotBlank()
  name?: string;

  @ApiPropertyOptional({ type: DesignDto, description: 'Design fields to change, merged over the stored design (null removes gradient, eye_colors or logo)', example: { colors: { foreground: '#0d47a1' } } })
  @IsOmittable() @IsObject({ message: 'design must be an object' })
  design?: Record<string, unknown>;
}

class TemplateLogoDto {
  @ApiProperty({ example: 'https://example.com/logo.png' }) url!: string;
  @ApiProperty({ example: true }) clear_background!: boolean;
}

/** A template's design: every field filled in. Unlike a code's, it shows the logo's URL (a template stores no logo
 * image; the logo is fetched when a code is created from it). */
export class TemplateDesignDto extends DesignResponseDto {
  @ApiProperty({ type: TemplateLogoDto, nullable: true, example: null }) logo!: TemplateLogoDto | null;
}

export class TemplateDto {
  @ApiProperty({ example: 'tpl_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['template'] }) object!: 'template';
  @ApiProperty({ example: 'Brand blue' }) name!: string;
  @ApiProperty({ type: TemplateDesignDto }) design!: TemplateDesignDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class TemplateListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [TemplateDto] }) data!: TemplateDto[];
}

export class DeletedTemplateDto {
  @ApiProperty({ example: 'tpl_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['template'] }) object!: 'template';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class ListTemplatesQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString() limit?: string;
  @ApiPropertyOptional() @IsOmittable() @IsString() @MaxLength(1024) cursor?: string;
}
