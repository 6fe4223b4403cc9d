import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { BODY_SHAPES, ERROR_CORRECTIONS, EYE_BALL_SHAPES, EYE_FRAME_SHAPES, GRADIENT_TYPES } from './design';

/* The `design` object's OpenAPI schema (docs/design.md). Validation itself is design.ts; these classes only document it.
 * Every field is optional on input: POST fills in the defaults, PATCH merges over the stored design. */
const HEX = { pattern: '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$', description: '`#RGB` or `#RRGGBB`' };

class DesignColorsDto {
  @ApiPropertyOptional({ ...HEX, example: '#1a237e', default: '#000000' }) foreground?: string;
  @ApiPropertyOptional({ ...HEX, example: '#ffffff', default: '#ffffff' }) background?: string;
}

class DesignGradientDto {
  @ApiProperty({ ...HEX, example: '#1a237e' }) start!: string;
  @ApiProperty({ ...HEX, example: '#00838f' }) end!: string;
  @ApiPropertyOptional({ enum: GRADIENT_TYPES, default: 'linear' }) type?: string;
}

class DesignShapesDto {
  @ApiPropertyOptional({ enum: BODY_SHAPES, default: 'square', example: 'dots' }) body?: string;
  @ApiPropertyOptional({ enum: EYE_FRAME_SHAPES, default: 'square', example: 'rounded' }) eye_frame?: string;
  @ApiPropertyOptional({ enum: EYE_BALL_SHAPES, default: 'square', example: 'circle' }) eye_ball?: string;
}

class DesignEyeColorsDto {
  @ApiPropertyOptional({ ...HEX, example: '#1a237e', description: 'Default: the foreground colour' }) frame?: string;
  @ApiPropertyOptional({ ...HEX, example: '#00838f', description: 'Default: the foreground colour' }) ball?: string;
}

class DesignLogoDto {
  @ApiProperty({ format: 'uri', maxLength: 2048, example: 'https://example.com/logo.png', description: 'http(s), no credentials; fetched once and stored' })
  url!: string;
  @ApiPropertyOptional({ default: true, description: 'Leave the modules under the logo out' }) clear_background?: boolean;
}

export class DesignDto {
  @ApiPropertyOptional({ enum: ERROR_CORRECTIONS, description: 'Default M; H when a logo is set and no level is named' }) error_correction?: string;
  @ApiPropertyOptional({ type: DesignColorsDto, description: 'Dark colours need a 3:1 contrast against the background and must be darker' })
  colors?: DesignColorsDto;
  @ApiPropertyOptional({ type: DesignGradientDto, nullable: true, description: 'Replaces the foreground in the body; null removes it' })
  gradient?: DesignGradientDto | null;
  @ApiPropertyOptional({ type: DesignShapesDto }) shapes?: DesignShapesDto;
  @ApiPropertyOptional({ type: DesignEyeColorsDto, nullable: true, description: 'null: the eyes use the body colour or gradient' })
  eye_colors?: DesignEyeColorsDto | null;
  @ApiPropertyOptional({ type: DesignLogoDto, nullable: true, description: 'null removes the logo' }) logo?: DesignLogoDto | null;
  @ApiPropertyOptional({ default: false }) transparent_background?: boolean;
}

/** A code's design as responses show it: every field filled in, `has_logo` instead of the logo's URL. Its examples are
 * what POST /v1/qr-codes answers to its own example request (DESIGN_EXAMPLE). */
export class DesignResponseDto {
  @ApiProperty({ enum: ERROR_CORRECTIONS, example: 'M' }) error_correction!: string;
  @ApiProperty({ type: DesignColorsDto, example: { foreground: '#1a237e', background: '#ffffff' } }) colors!: DesignColorsDto;
  @ApiProperty({ type: DesignGradientDto, nullable: true, example: null }) gradient!: DesignGradientDto | null;
  @ApiProperty({ type: DesignShapesDto, example: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' } }) shapes!: DesignShapesDto;
  @ApiProperty({ type: DesignEyeColorsDto, nullable: true, example: null }) eye_colors!: DesignEyeColorsDto | null;
  @ApiProperty({ example: false }) has_logo!: boolean;
  @ApiProperty({ example: false }) transparent_background!: boolean;
}

export const DESIGN_EXAMPLE = { shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' }, colors: { foreground: '#1a237e', background: '#ffffff' } };
