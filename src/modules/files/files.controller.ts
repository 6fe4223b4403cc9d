import { Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { NoBody } from '../../common/http/no-body';
import { DeletedFileDto, FileDto, FileListDto, ListFilesQueryDto, UploadFileDto } from './files.dto';
import { FilesService } from './files.service';

/** The shared error envelope (registered by openapi.ts as an extra model). */
const envelope = { 'application/json': { schema: { $ref: getSchemaPath('ErrorEnvelopeDto') } } };

@ApiTags('Files')
@Controller('files')
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Upload a file',
    description:
      'For `file`, `audio` and `video` QR codes (pass the returned id as `target.file_id`). `multipart/form-data` with one ' +
      'part named `file`, streamed to storage. The type is sniffed from the bytes: PDF, PNG, JPEG, WebP, GIF, MP3, M4A/AAC, ' +
      'OGG, WAV, MP4, WebM; anything else (HTML, SVG, …) is refused. Plans with dynamic codes only (free: 403 plan_restricted).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadFileDto })
  @ApiCreatedResponse({ type: FileDto })
  @ApiBadRequestResponse({ description: 'invalid_request on `file`: not multipart, no `file` part, another part, or a type that is not accepted', content: envelope })
  @ApiPayloadTooLargeResponse({ description: 'file_too_large: more than FILE_MAX_BYTES (25 MB by default); nothing is stored', content: envelope })
  upload(@Auth() auth: AuthContext, @Req() req: FastifyRequest): Promise<FileDto> {
    return this.files.upload(auth, req);
  }

  @Get()
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'List uploaded files', description: 'Newest first; only the key\'s environment (live or test).' })
  @ApiOkResponse({ type: FileListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListFilesQueryDto): Promise<FileListDto> {
    return this.files.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'Retrieve an uploaded file' })
  @ApiOkResponse({ type: FileDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<FileDto> {
    return this.files.retrieve(auth, id);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ApiOperation({
    summary: 'Delete an uploaded file',
    description: 'Refused while a code (live, trashed or paused) uses it. Permanently deleting a code leaves its file in place until deleted here.',
  })
  @ApiOkResponse({ type: DeletedFileDto })
  @ApiConflictResponse({ description: 'file_in_use: a code still uses the file', content: envelope })
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DeletedFileDto> {
    return this.files.remove(auth, id);
  }
}
