import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import { fileKey, IMAGE_STORAGE, type ImageStorage } from '../images/storage/image-storage';
import type { UploadedFile } from './file.entity';
import { ALLOWED_TYPES_TEXT } from './file-types';
import type { DeletedFileDto, FileDto, FileListDto, ListFilesQueryDto } from './files.dto';
import { FileInUseError, FilesRepository, findFile } from './files.repository';
import { readUpload } from './multipart-upload';

export function presentFile(f: UploadedFile): FileDto {
  return {
    id: f.id,
    object: 'file',
    name: f.name,
    content_type: f.contentType,
    size: Number(f.size),
    sha256: f.sha256,
    created_at: f.createdAt.toISOString(),
  };
}

/** Uploaded files (docs/files.md): intake, listing, deletion; the bytes go to the storage driver under their hash. */
@Injectable()
export class FilesService {
  /** Where uploads are written while they arrive: beside the stored files (so storing one is a rename) when the
   * driver is the filesystem, else the system's temporary directory. */
  private readonly incoming: string;

  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    @Inject(IMAGE_STORAGE) private readonly storage: ImageStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.incoming = config.storageDriver === 'fs' ? join(config.storageDir, '.incoming') : join(tmpdir(), 'scanlink-incoming');
  }

  async upload(auth: AuthContext, req: FastifyRequest): Promise<FileDto> {
    if (auth.plan.dynamic_qr_limit === 0) {
      throw new ApiException('plan_restricted', `The ${auth.plan.id} plan includes static codes only; uploads serve file, audio and video codes, on Plus or higher`, {
        plan_id: auth.plan.id,
      });
    }
    const { intake, name } = await readUpload(req, { maxBytes: this.config.fileMaxBytes, dir: this.incoming });
    try {
      const type = intake.type;
      if (!type) throw ApiException.invalid('file', `file must be one of ${ALLOWED_TYPES_TEXT} (judged from its bytes, not its name)`);
      const key = fileKey(intake.sha256);
      const file = await this.em.transactional(async (em) => {
        const repo = new FilesRepository(em);
        await repo.lockContent(intake.sha256);
        // The same bytes stored already (by any workspace) are kept as they are: the key is their hash.
        if (!(await repo.contentInUse(intake.sha256))) await this.storage.putFile(key, intake.path, intake.size, type.contentType);
        try {
          return await repo.insert({ organizationId: auth.organizationId, environment: auth.environment, name, contentType: type.contentType, size: intake.size, sha256: intake.sha256 });
        } catch (err) {
          if (!(await new FilesRepository(this.em.fork()).contentInUse(intake.sha256))) await this.storage.delete(key).catch(() => undefined);
          throw err;
        }
      });
      return presentFile(file);
    } finally {
      await rm(intake.path, { force: true });
    }
  }

  list(auth: AuthContext, query: ListFilesQueryDto): Promise<FileListDto> {
    return new FilesRepository(this.em).page(auth, { ...query }, this.cursors, presentFile);
  }

  async retrieve(auth: AuthContext, id: string): Promise<FileDto> {
    return presentFile(await this.find(auth, id));
  }

  /** Deletes the file; its bytes go too unless another file row holds the same ones. 409 while a code uses it. */
  async remove(auth: AuthContext, id: string): Promise<DeletedFileDto> {
    const file = await this.find(auth, id);
    try {
      await this.em.transactional(async (em) => {
        const repo = new FilesRepository(em);
        await repo.lockContent(file.sha256);
        await repo.delete(file);
        if (!(await repo.contentInUse(file.sha256))) await this.storage.delete(fileKey(file.sha256));
      });
    } catch (err) {
      if (err instanceof FileInUseError) {
        throw new ApiException('file_in_use', `The file '${file.id}' is used by a QR code; delete the code (and empty it from the Trash) first`);
      }
      throw err;
    }
    return { id: file.id, object: 'file', deleted: true };
  }

  private async find(auth: AuthContext, id: string): Promise<UploadedFile> {
    const file = await findFile(this.em, auth, id);
    if (!file) throw ApiException.notFound('file', id);
    return file;
  }
}
