import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Gs1TargetResponseDto } from '../../gs1/gs1.dto';
import { ListEnvelopeDto } from '../../../common/http/list';
import { DesignResponseDto } from '../../rendering/design.dto';

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
  @ApiProperty({ example: 'url', description: 'The target type (url, text, email, sms, wifi, event, vcard, location, whatsapp, …)' }) type!: string;
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
      'The target with its response-only fields `editable` (and `summary` for linkpage `{title, link_count}`, form `{title, field_count, lead_count}`, menupage `{title, item_count}`, file, audio and video `{title, file_name, content_type, size}`). Page-holding codes carry their hosted page URL (= short_url) in `destination`. ' +
      'GS1 codes (`type: gs1`) carry their identifier, links and Digital Link URI (`destination`) as Gs1TargetResponseDto.',
    anyOf: [{ type: 'object', additionalProperties: true }, { $ref: getSchemaPath(Gs1TargetResponseDto) }],
    example: { type: 'url', destination: 'https://example.com/menu', utm: { source: 'qr', campaign: 'spring' }, editable: true },
  })
  target!: object;
  @ApiProperty({ type: DesignResponseDto }) design!: DesignResponseDto;
  @ApiProperty({ type: String, nullable: true, example: 'fld_4bX9kQ2mT7vLp1sZ8nYc' }) folder_id!: string | null;
  @ApiProperty({ type: [String], example: ['spring', 'menu'] }) tags!: string[];
  @ApiProperty({ type: String, nullable: true, example: 'http://localhost:3001/images/3f2a9c1b.svg' }) image_url!: string | null;
  @ApiProperty({ example: '/v1/qr-codes/qr_4bX9kQ2mT7vLp1sZ8nYc/download' }) download_url!: string;
  @ApiProperty() is_active!: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'null for static codes' }) scan_count!: number | null;
  @ApiProperty({ type: UtmDto, nullable: true, description: 'null unless set on a dynamic url code' }) utm!: UtmDto | null;
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
