import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ListEnvelopeDto } from '../../../common/http/list';
import { DesignResponseDto } from '../../rendering/design.dto';

class UtmDto {
  @ApiPropertyOptional({ example: 'qr' }) source?: string;
  @ApiPropertyOptional() medium?: string;
  @ApiPropertyOptional({ example: 'spring' }) campaign?: string;
  @ApiPropertyOptional() term?: string;
  @ApiPropertyOptional() content?: string;
}

export class QrCodeDto {
  @ApiProperty({ example: 'qr_4bX9kQ2mT7vLp1sZ8nYc' }) id!: string;
  @ApiProperty({ enum: ['qr_code'] }) object!: string;
  @ApiProperty({ enum: ['dynamic', 'static'] }) kind!: string;
  @ApiProperty({ example: 'Spring menu' }) name!: string;
  @ApiProperty({ example: 'url', description: 'The target type (url, text, email, sms, wifi, event, vcard, location, whatsapp, …)' }) type!: string;
  @ApiProperty({ example: 'aB3dE9x' }) short_code!: string;
  @ApiProperty({ type: String, nullable: true, example: 'http://localhost:3001/aB3dE9x' }) short_url!: string | null;
  @ApiProperty({
    description: 'The target with its response-only fields `editable` (and `summary` for linkpage `{title, link_count}`, form `{title, field_count, lead_count}`, menupage `{title, item_count}`, file, audio and video `{title, file_name, content_type, size}`). Page-holding codes carry their hosted page URL (= short_url) in `destination`.',
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
