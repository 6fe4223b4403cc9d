import { ApiHideProperty, ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { Allow, IsArray, IsDefined, IsIn, IsObject, IsOptional, IsString, Length, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { IsOmittable, NotBlank } from '../../common/errors/validation';
import { DESIGN_EXAMPLE, DesignDto } from '../rendering/design.dto';
import { LinkControlFields } from '../targets/link-controls';
import { IsDesignField, IsFolderIdField, IsTagsField, IsTemplateIdField } from '../../common/http/code-body-fields';

/* The GS1 Digital Link request and response shapes (docs/gs1.md). The DTOs check shapes only (types, unknown fields);
 * GS1's own rules (the Syntax Dictionary, link types, override paths) are the gs1 module's, run by targets/gs1.target.ts. */

const GTIN = '09506000134352';

export class Gs1AiValueDto {
  @ApiProperty({ example: '01', description: 'A GS1 Application Identifier (2–4 digits)' })
  @IsDefined({ message: 'ai is required' }) @IsString({ message: 'ai must be a string' }) @MaxLength(4)
  ai!: string;

  @ApiProperty({ example: GTIN, description: 'The value, unencoded (GTIN-8/12/13 are padded to 14 digits)' })
  @IsDefined({ message: 'value is required' }) @IsString({ message: 'value must be a string' }) @MaxLength(90)
  value!: string;
}

export class Gs1LinkDto {
  @ApiProperty({ example: 'gs1:pip', description: 'A GS1 Web Vocabulary link type: `gs1:pip` or `https://gs1.org/voc/pip`' })
  @IsDefined({ message: 'linkType is required' }) @IsString({ message: 'linkType must be a string' }) @MaxLength(255)
  linkType!: string;

  @ApiProperty({ example: 'https://brand.example/en/product', description: 'http or https URL' })
  @IsDefined({ message: 'href is required' }) @IsString({ message: 'href must be a string' })
  href!: string;

  @ApiPropertyOptional({ example: 'Product information', description: "Default: the link type's label from the GS1 vocabulary" })
  @IsOmittable() @IsString({ message: 'title must be a string' }) @Length(1, 255)
  title?: string;

  @ApiPropertyOptional({ type: [String], example: ['en'], description: 'Language tags `xx` or `xx-XX`' })
  @IsOmittable() @IsArray({ message: 'hreflang must be an array of strings' }) @IsString({ each: true, message: 'hreflang must be an array of strings' })
  hreflang?: string[];
}

export class Gs1OverrideDto {
  @ApiProperty({ example: '10/LOT42', description: '`<ai>/<value>` pairs below the primary key; the most specific match wins' })
  @IsDefined({ message: 'path is required' }) @IsString({ message: 'path must be a string' }) @MaxLength(512)
  path!: string;

  @ApiProperty({ example: 'https://brand.example/recall/LOT42', description: 'The default link of that level' })
  @IsDefined({ message: 'href is required' }) @IsString({ message: 'href must be a string' })
  href!: string;
}

const LINKS_EXAMPLE = [
  { linkType: 'gs1:pip', href: 'https://brand.example/en/product', hreflang: ['en'] },
  { linkType: 'gs1:certificationInfo', href: 'https://brand.example/certificates', title: 'Certificates' },
];

/** `POST /v1/qr-codes` with `type: "gs1"`: a GS1 Digital Link code. Of the link controls it documents `expires_at` and
 * `expired_url` only; `max_scans` and `password` stay known fields (not in the schema) so that the link-control
 * parser refuses them with a 400 that says why, rather than "unknown field". */
export class CreateGs1QrCodeDto extends PickType(LinkControlFields, ['expires_at', 'expired_url'] as const) {
  @ApiHideProperty()
  @IsOptional()
  max_scans?: unknown;

  @ApiHideProperty()
  @IsOptional()
  password?: unknown;

  @ApiProperty({ enum: ['gs1'] })
  @IsIn(['gs1'], { message: "type must be 'gs1'" })
  type!: 'gs1';

  @ApiPropertyOptional({
    enum: ['dynamic', 'static'],
    default: 'dynamic',
    description: 'dynamic: resolved by this service\'s scan host (editable links, counted scans); static: encodes `https://<domain>/…` for your own resolver (uncapped, free plan included)',
  })
  @IsOmittable() @IsIn(['dynamic', 'static'], { message: "mode must be 'dynamic' or 'static'" })
  mode?: 'dynamic' | 'static';

  @ApiPropertyOptional({ maxLength: 255, example: 'Crew neck T-shirt', description: "Default: the Digital Link URI's identifier; the resolver's itemDescription" })
  @IsOmittable() @IsString() @Length(1, 255) @NotBlank()
  name?: string;

  @ApiProperty({ type: Gs1AiValueDto, example: { ai: '01', value: GTIN } })
  @IsDefined({ message: 'primary_key is required' }) @IsObject({ message: 'primary_key must be an object {ai, value}' })
  @ValidateNested() @Type(() => Gs1AiValueDto)
  primary_key!: Gs1AiValueDto;

  @ApiPropertyOptional({ type: [Gs1AiValueDto], example: [{ ai: '10', value: 'LOT42' }], description: 'For GTIN: 22, 10, 21 in that order, or 235 alone' })
  @IsOmittable() @IsArray({ message: 'qualifiers must be an array' }) @ValidateNested({ each: true }) @Type(() => Gs1AiValueDto)
  qualifiers?: Gs1AiValueDto[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { '17': '271231' }, description: 'Data attributes (AI → value), encoded in the query string' })
  @IsOmittable() @IsObject({ message: 'attributes must be an object of AI → string value' })
  attributes?: Record<string, string>;

  @ApiPropertyOptional({ example: 'https://brand.example/product', description: 'Dynamic (required): the default link (gs1:defaultLink)' })
  @IsOmittable() @IsString({ message: 'destination must be a string' })
  destination?: string;

  @ApiPropertyOptional({ type: [Gs1LinkDto], example: LINKS_EXAMPLE, description: 'Dynamic: links by GS1 link type' })
  @IsOmittable() @IsArray({ message: 'links must be an array' }) @ValidateNested({ each: true }) @Type(() => Gs1LinkDto)
  links?: Gs1LinkDto[];

  @ApiPropertyOptional({ type: [Gs1OverrideDto], example: [{ path: '10/LOT42', href: 'https://brand.example/recall/LOT42' }], description: 'Dynamic: default links of deeper levels' })
  @IsOmittable() @IsArray({ message: 'overrides must be an array' }) @ValidateNested({ each: true }) @Type(() => Gs1OverrideDto)
  overrides?: Gs1OverrideDto[];

  @ApiPropertyOptional({ example: 'id.brand.example', description: "Static (required): your resolver's host name" })
  @IsOmittable() @IsString({ message: 'domain must be a string' })
  domain?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'dom_3kD8sQ1vXn5LmR7pTb2Y',
    description:
      'Dynamic: the verified custom domain (`dom_…`) the code is resolved on (it encodes `https://<hostname>/01/…`). Omitted: the primary domain when one ' +
      'is set; null: the default scan host. Unknown or another workspace\'s → 404; not verified → 422 domain_not_verified.',
  })
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString({ message: 'domain_id must be a dom_… id or null' }) @MaxLength(64, { message: 'domain_id must be a dom_… id or null' })
  domain_id?: string | null;

  @ApiPropertyOptional({ type: DesignDto, example: DESIGN_EXAMPLE })
  @IsDesignField()
  design?: Record<string, unknown>;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'tpl_4bX9kQ2mT7vLp1sZ8nYc',
    description: 'A design template (tpl_…) whose design is copied into the code; `design` beside it overrides it field by field.',
  })
  @IsTemplateIdField()
  template_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'fld_4bX9kQ2mT7vLp1sZ8nYc' })
  @IsFolderIdField()
  folder_id?: string | null;

  @ApiPropertyOptional({ type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 10, example: ['retail'] })
  @IsTagsField()
  tags?: string[];
}

/** The PATCH fields of a dynamic GS1 code (top level, not under `target`), mixed into UpdateQrCodeDto. */
export class Gs1PatchFields extends LinkControlFields {
  @ApiPropertyOptional({ example: 'https://brand.example/product-v2', description: 'Dynamic GS1 codes only: the default link' })
  @IsOmittable() @IsString({ message: 'destination must be a string' })
  destination?: string;

  @ApiPropertyOptional({ type: [Gs1LinkDto], description: 'Dynamic GS1 codes only: replaces every link' })
  @IsOmittable() @IsArray({ message: 'links must be an array' }) @ValidateNested({ each: true }) @Type(() => Gs1LinkDto)
  links?: Gs1LinkDto[];

  @ApiPropertyOptional({ type: [Gs1OverrideDto], description: 'Dynamic GS1 codes only: replaces every override' })
  @IsOmittable() @IsArray({ message: 'overrides must be an array' }) @ValidateNested({ each: true }) @Type(() => Gs1OverrideDto)
  overrides?: Gs1OverrideDto[];

  // The identifier of a GS1 code never changes: naming one of these is 422 gs1_identifier_immutable (not "unknown").
  @ApiHideProperty() @Allow() primary_key?: unknown;
  @ApiHideProperty() @Allow() qualifiers?: unknown;
  @ApiHideProperty() @Allow() attributes?: unknown;
  @ApiHideProperty() @Allow() domain?: unknown;
  @ApiHideProperty() @Allow() mode?: unknown;
  @ApiHideProperty() @Allow() gs1_key?: unknown;
}

/** The GS1 fields PATCH refuses on every GS1 code (with domain_id, which the PATCH body already has). */
export const GS1_IDENTIFIER_FIELDS = ['primary_key', 'qualifiers', 'attributes', 'domain', 'domain_id', 'mode', 'gs1_key'] as const;
/** The top-level PATCH fields only GS1 codes take. */
export const GS1_PATCH_ONLY_FIELDS = ['destination', 'links', 'overrides', 'primary_key', 'qualifiers', 'attributes', 'domain', 'mode', 'gs1_key'] as const;

/** `target` of a GS1 code in the QR code object. */
export class Gs1TargetResponseDto {
  @ApiProperty({ enum: ['gs1'] }) type!: string;
  @ApiProperty({ enum: ['dynamic', 'static'] }) mode!: string;
  @ApiProperty({ example: `http://localhost:3001/01/${GTIN}/10/LOT42?17=271231`, description: 'The Digital Link URI the code encodes' })
  destination!: string;
  @ApiProperty({ type: Gs1AiValueDto }) primary_key!: Gs1AiValueDto;
  @ApiProperty({ type: [Gs1AiValueDto] }) qualifiers!: Gs1AiValueDto[];
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { '17': '271231' } }) attributes!: Record<string, string>;
  @ApiProperty({ type: String, nullable: true, example: 'https://brand.example/product', description: 'The default link (null for static codes)' })
  default_link!: string | null;
  @ApiProperty({ type: [Gs1LinkDto], description: 'linkType as the full vocabulary URI', example: [{ linkType: 'https://gs1.org/voc/pip', href: 'https://brand.example/en/product', hreflang: ['en'] }] })
  links!: Gs1LinkDto[];
  @ApiProperty({ type: [Gs1OverrideDto] }) overrides!: Gs1OverrideDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Static codes: the resolver host', example: null }) domain!: string | null;
  @ApiProperty({ enum: [false] }) editable!: boolean;
}
