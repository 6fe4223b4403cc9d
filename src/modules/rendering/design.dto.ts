import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { FRAME_STYLES, FRAME_TEXT_MAX } from './frame';
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
  @ApiProperty({
    format: 'uri',
    example: 'https://example.com/logo.png',
    description: 'http(s) (at most 2048 characters, no credentials; fetched once and stored), or a `data:` URL of a PNG, JPEG, WebP or SVG image of at most 1 MB decoded',
  })
  url!: string;
  @ApiPropertyOptional({ default: true, description: 'Leave the modules under the logo out' }) clear_background?: boolean;
}

class DesignFrameDto {
  @ApiPropertyOptional({ enum: FRAME_STYLES, default: 'none', example: 'banner_bottom' }) style?: string;
  @ApiPropertyOptional({ type: String, minLength: 1, maxLength: FRAME_TEXT_MAX, example: 'Scan for the menu', description: 'The call to action, drawn as outlines; no control characters. Default "Scan me" when a style is set' })
  text?: string | null;
  @ApiPropertyOptional({ ...HEX, example: '#ffffff', description: 'Default: the background colour; at least 3:1 against `color`' }) text_color?: string;
  @ApiPropertyOptional({ ...HEX, example: '#1a237e', description: 'Default: the foreground colour' }) color?: string;
}

class DesignFrameResponseDto {
  @ApiProperty({ enum: FRAME_STYLES, example: 'none' }) style!: string;
  @ApiProperty({ type: String, nullable: true, example: null }) text!: string | null;
  @ApiProperty({ ...HEX, example: '#ffffff' }) text_color!: string;
  @ApiProperty({ ...HEX, example: '#1a237e' }) color!: string;
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
  @ApiPropertyOptional({ type: DesignFrameDto, nullable: true, description: 'A frame with a call to action around the code (outside its quiet zone); null removes it' })
  frame?: DesignFrameDto | null;
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
  @ApiProperty({ type: DesignFrameResponseDto }) frame!: DesignFrameResponseDto;
}

export const DESIGN_EXAMPLE = { shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' }, colors: { foreground: '#1a237e', background: '#ffffff' } };
