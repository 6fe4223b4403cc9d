import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Gs1TargetResponseDto } from '../../gs1/gs1.dto';
import { ListEnvelopeDto } from '../../../common/http/list';
import { DesignResponseDto } from '../../rendering/design.dto';
import { MAX_SCANS_LIMIT } from '../../targets/link-controls';
import { CODE_TYPES } from '../code-kinds';

class UtmDto {
  @ApiPropertyOptional({ example: 'qr' }) source?: string;
  @ApiPropertyOptional() medium?: string;
  @ApiPropertyOptional({ example: 'spring' }) campaign?: string;
  @ApiPropertyOptional() term?: string;
  @ApiPropertyOptional() content?: string;
}

@ApiExtraModels(Gs1TargetResponseDto)
export class QrCodeDto {
  @ApiProperty({ example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['qr_code'] }) object!: string;
  @ApiProperty({ enum: ['dynamic', 'static'] }) kind!: string;
  @ApiProperty({ example: 'Spring menu' }) name!: string;
  @ApiProperty({ enum: CODE_TYPES, example: 'url', description: 'The target type (url, text, email, sms, wifi, event, vcard, location, whatsapp, …)' }) type!: string;
  @ApiProperty({ example: 'aB3dE9x' }) short_code!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'http://localhost:3001/aB3dE9x',
    description:
      'The scan URL (null for static codes): `https://<custom domain>/<short_code>` on a custom domain, else on the default scan host; a dynamic GS1 code reports its Digital Link URI',
  })
  short_url!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The custom domain (`dom_…`) the scan URL lives on; null for the default scan host and for static codes. Fixed at creation.',
  })
  domain_id!: string | null;
  @ApiProperty({
    description:
      'The target with its response-only fields `editable` (and `summary` for linkpage `{title, link_count}`, form `{title, field_count, lead_count}`, menupage `{title, item_count}`, file, audio and video `{title, file_name, content_type, size}`, smarturl `{rules, splits}`: the rule count and how many of them split). Page-holding codes (`editable: false`) carry their hosted page URL (= short_url) in `destination`. ' +
      'A smart URL (`type: smarturl`) carries `default_url` and `rules` as stored, each rule with its `id` (`rul_…`, kept across `PUT …/content` when sent back), `name` (null when unnamed), `if` and `then`, besides `editable: false`, `destination` (= short_url) and `summary`. ' +
      'GS1 codes (`type: gs1`) carry their identifier, links and Digital Link URI (`destination`) as Gs1TargetResponseDto.',
    anyOf: [{ type: 'object', additionalProperties: true }, { $ref: getSchemaPath(Gs1TargetResponseDto) }],
    example: { type: 'url', destination: 'https://example.com/menu', utm: { source: 'qr', campaign: 'spring' }, editable: true },
  })
  target!: object;
  @ApiProperty({ type: DesignResponseDto }) design!: DesignResponseDto;
  @ApiProperty({ type: String, nullable: true, example: 'fld_4bX9kQ2mT7vLp1sZ8nYc' }) folder_id!: string | null;
  @ApiProperty({ type: [String], example: ['spring', 'menu'] }) tags!: string[];
  @ApiProperty({ type: String, example: 'http://localhost:3001/images/3f2a9c1b.svg', description: 'The stored SVG (public, immutable: a design change stores a new one)' }) image_url!: string;
  @ApiProperty({ example: '/v1/qr-codes/qr_4bX9kQ2mT7vLp1sZ8nYc/download' }) download_url!: string;
  @ApiProperty() is_active!: boolean;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null for static codes' }) scan_count!: number | null;
  @ApiProperty({ type: UtmDto, nullable: true, description: 'null unless set on a dynamic url code' }) utm!: UtmDto | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'Link control: scans after this instant are expired (null: never; always null for static codes)' })
  expires_at!: string | null;
  @ApiProperty({ type: 'integer', nullable: true, minimum: 1, maximum: MAX_SCANS_LIMIT, example: null, description: 'Link control: scans after this many counted ones are expired (null: no limit)' })
  max_scans!: number | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Link control: where an expired scan is redirected (null: the hosted 410 expired page)' })
  expired_url!: string | null;
  @ApiProperty({ example: false, description: 'Link control: visitors must enter a password first (the password itself is never returned)' })
  has_password!: boolean;
  @ApiProperty({ enum: ['live', 'test'], description: 'test when created with a qr_test_ key' }) environment!: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Present on trashed and paused codes' }) deleted_at?: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class QrCodeListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [QrCodeDto] }) data!: QrCodeDto[];
}

export class DeletedQrCodeDto {
  @ApiProperty({ example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['qr_code'] }) object!: string;
  @ApiProperty({ enum: [true] }) deleted!: boolean;
}

export class EmptiedTrashDto {
  @ApiProperty({ enum: ['trash'] }) object!: 'trash';
  @ApiProperty({ type: 'integer', example: 3, description: 'The number of codes deleted permanently' }) deleted!: number;
}

class RuleTestArmDto {
  @ApiProperty({ example: 'https://example.com/a' }) destination!: string;
  @ApiProperty({ type: 'integer', example: 50 }) weight!: number;
}

/** What a scan with the tested facts would get from a smart URL's rules. */
export class RuleTestResultDto {
  @ApiProperty({ type: String, nullable: true, example: 'rul_8fK2mN4pQ6rS1tU3vW5x', description: 'The first matching rule; null when none matches (the default URL)' })
  rule_id!: string | null;
  @ApiPropertyOptional({ example: 'https://example.com/fr', description: 'A plain rule\'s destination, or `default_url` when no rule matches' })
  destination?: string;
  @ApiPropertyOptional({ type: [RuleTestArmDto], description: 'A split rule\'s arms' })
  split?: RuleTestArmDto[];
  @ApiPropertyOptional({ type: 'integer', isArray: true, example: [0, 1], description: 'A split rule: the arm indexes a scan may be given (drawn by weight per scan)' })
  arm_candidates?: number[];
}

/** The facts of an imagined scan for the rule tester. */
export class RuleTestBodyDto {
  @ApiPropertyOptional({ example: 'FR', description: 'ISO 3166-1 alpha-2 (defaults to the region\'s country)' }) country?: string;
  @ApiPropertyOptional({ example: 'FR-IDF', description: 'ISO 3166-2' }) region?: string;
  @ApiPropertyOptional({ enum: ['mobile', 'tablet', 'desktop'] }) device?: string;
  @ApiPropertyOptional({ enum: ['ios', 'android', 'windows', 'macos', 'linux', 'other'] }) os?: string;
  @ApiPropertyOptional({ example: 'fr-CA', description: 'The first Accept-Language preference' }) language?: string;
  @ApiPropertyOptional({ format: 'date-time', example: '2026-06-01T09:30:00Z', description: 'RFC 3339 with seconds and an offset. Default: now' }) at?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, example: 42, description: 'Default: the code\'s next scan number' }) scan_number?: number;
}

export class ScanWarningDto {
  @ApiProperty({ example: 'low_contrast', description: 'not_decoded, low_contrast, logo_error_correction, logo_over_modules, transparent_background, dense_code' })
  code!: string;
  @ApiProperty({ example: 'A contrast of 3.80:1 scans, but 4.5:1 or more reads faster in poor light' }) message!: string;
}

/** `POST /v1/qr-codes/preview?check=true`. */
export class ScannabilityReportDto {
  @ApiProperty({ example: true, description: 'The rendered PNG decodes to the exact payload with an independent decoder (zxing-cpp)' }) decodes!: boolean;
  @ApiProperty({ example: 21, description: 'The weakest WCAG contrast of a dark colour against the background (white when transparent)' }) contrast_ratio!: number;
  @ApiProperty({ example: 0, minimum: 0, maximum: 0.3, description: "The logo's width as a fraction of the symbol's width (quiet zone excluded); 0 without a logo" })
  logo_coverage!: number;
  @ApiProperty({ type: 'integer', example: 25, description: 'Modules across the symbol, quiet zone excluded' }) modules!: number;
  @ApiProperty({ example: 13.2, description: 'Smallest printed width (mm, symbol with its quiet zone, as print_mm) keeping each module at least 0.4 mm' })
  min_print_mm!: number;
  @ApiProperty({ type: [ScanWarningDto] }) warnings!: ScanWarningDto[];
}
