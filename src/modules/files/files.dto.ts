import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { IsOmittable } from '../../common/errors/validation';
import { ListEnvelopeDto } from '../../common/http/list';

export const FILE_CONTENT_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'audio/mpeg',
  'audio/mp4',
  'audio/aac',
  'audio/ogg',
  'audio/wav',
  'video/mp4',
  'video/webm',
];

/** The multipart request body, for the OpenAPI document (the controller reads the stream itself). */
export class UploadFileDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description:
      'The file, as the one part named `file`. Its type is sniffed from the bytes (the part\'s Content-Type and the name\'s ' +
      'extension are ignored): PDF, PNG, JPEG, WebP, GIF, MP3, M4A/AAC, OGG, WAV, MP4 or WebM. At most FILE_MAX_BYTES (25 MB by default).',
  })
  file!: unknown;
}

export class FileDto {
  @ApiProperty({ example: 'file_7pQ2mX9sLk4VbR1tNc8Z' }) id!: string;
  @ApiProperty({ enum: ['file'] }) object!: 'file';
  @ApiProperty({ example: 'menu-2026.pdf', description: 'The uploaded file\'s name (path and control characters removed)' }) name!: string;
  @ApiProperty({ enum: FILE_CONTENT_TYPES, example: 'application/pdf', description: 'Sniffed from the bytes' }) content_type!: string;
  @ApiProperty({ type: 'integer', example: 482133, description: 'Bytes' }) size!: number;
  @ApiProperty({ example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', description: 'SHA-256 of the bytes, hex' })
  sha256!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class FileListDto extends ListEnvelopeDto {
  @ApiProperty({ type: [FileDto] }) data!: FileDto[];
}

export class DeletedFileDto {
  @ApiProperty({ example: 'file_7pQ2mX9sLk4VbR1tNc8Z' }) id!: string;
  @ApiProperty({ enum: ['file'] }) object!: 'file';
  @ApiProperty({ enum: [true] }) deleted!: true;
}

export class ListFilesQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 }) @IsOmittable() @IsString() limit?: string;
  @ApiPropertyOptional({ description: 'next_cursor of the previous page' }) @IsOmittable() @IsString() @MaxLength(1024) cursor?: string;
}
