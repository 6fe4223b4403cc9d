import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiException } from '../../common/errors/api.exception';
import type { ServedFile } from '../files/file-delivery.service';
import { type FileKind, kindOf } from '../files/file-types';
import { findFile } from '../files/files.repository';
import { filePage, type StoredFileTarget } from '../hosted-pages/file-pages';
import type { ScannedCode } from '../hosted-pages/hosted-response';
import { defineHandler, refuseTargetPatch, type TargetHandler } from './target-handler';

export class FileTarget {
  @ApiProperty({ enum: ['file', 'audio', 'video'] }) type!: string;
  @ApiProperty({ example: 'file_7pQ2mX9sLk4VbR1tNc8Z', description: 'An uploaded file (POST /v1/files) of the same workspace and environment' })
  file_id!: string;
  @ApiPropertyOptional({ example: 'Our autumn menu', description: 'Page heading; default: the file name' }) title?: string;
  @ApiPropertyOptional({ example: 'Tap the button to download it.' }) description?: string;
}

/** The file a code serves: the snapshot taken at creation (files never change; a file a code uses cannot be deleted). */
function served(code: ScannedCode<StoredFileTarget>): ServedFile | null {
  const f = code.target.file;
  if (!f || typeof f.sha256 !== 'string') return null;
  return { sha256: f.sha256, name: f.name, contentType: f.content_type, size: f.size };
}

/**
 * `file`, `audio` and `video` (docs/files.md): a hosted page showing an uploaded file (the browser's own PDF viewer,
 * an image, an <audio> or <video> player) with a download button; the bytes on `/{short_code}/file`. Dynamic only,
 * page-holding.
 */
function fileTarget(type: 'file' | 'audio' | 'video', accepts: readonly FileKind[], what: string): TargetHandler {
  return defineHandler<StoredFileTarget>({
    type,
    schema: FileTarget,
    staticCapable: false,
    pageHolding: true,
    internalFields: ['file'],
    parse(r) {
      r.only(['file_id', 'title', 'description']);
      const fileId = r.string('file_id', { required: true, max: 64 })!;
      if (!/^file_[0-9A-Za-z]{16,40}$/.test(fileId)) r.fail('file_id', 'must be the id of an uploaded file (file_…)');
      return { file_id: fileId, title: r.string('title', { max: 255 }) ?? null, description: r.string('description', { max: 1000 }) ?? null };
    },
    async resolve(target, ctx) {
      const id = target.file_id;
      const path = ctx.path ?? 'target';
      const field = path ? `${path}.file_id` : 'file_id';
      const file = await findFile(ctx.em, ctx.owner, id);
      if (!file) throw new ApiException('not_found', `No such file: '${id}'`, { field });
      if (!accepts.includes(kindOf(file.contentType))) {
        throw ApiException.invalid(field, `${field} must name ${what} (this file is ${file.contentType})`);
      }
      return { ...target, file: { name: file.name, content_type: file.contentType, size: Number(file.size), sha256: file.sha256 } };
    },
    patch: () => refuseTargetPatch(type),
    payload() {
      throw new Error(`${type} codes are dynamic only`);
    },
    summary({ title, file }) {
      return { title: title ?? file?.name ?? null, file_name: file?.name ?? null, content_type: file?.content_type ?? null, size: file?.size ?? null };
    },
    scan: { page: (c) => filePage(c, type === 'audio' ? 'audio' : undefined), files: { file: served } },
  });
}

export const fileHandler = fileTarget('file', ['document', 'image', 'audio', 'video'], 'an uploaded file');
// An audio-only recording often comes in an MP4 or WebM container (sniffed as video): <audio> plays its sound.
export const audioHandler = fileTarget('audio', ['audio', 'video'], 'an audio file (MP3, M4A/AAC, OGG, WAV)');
export const videoHandler = fileTarget('video', ['video'], 'a video file (MP4, WebM)');
