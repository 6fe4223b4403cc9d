import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import { RateLimiter } from '../../common/http/rate-limiter';
import { lockOrganization } from '../accounts/organizations.repository';
import type { WorkspaceUsage, WorkspaceUsageSource } from '../accounts/workspace-usage';
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

type Quota = 'storage_bytes' | 'files';

function quotaError(auth: AuthContext, which: Quota, current: number, requested: number): ApiException {
  const limit = auth.plan[which];
  const what = which === 'files' ? `${limit} uploaded files` : `${limit} bytes of uploaded files`;
  return new ApiException('plan_limit_reached', `The ${auth.plan.id} plan allows ${what} (test and live together); ${current} used, ${requested} more requested`, {
    field: 'file',
    limit,
    current,
    current_count: current,
    requested,
    plan_id: auth.plan.id,
  });
}

/** Uploaded files (docs/files.md): intake, listing, deletion; the bytes go to the storage driver under their hash.
 * Also the workspace's storage usage (`GET /v1/me`). */
@Injectable()
export class FilesService implements WorkspaceUsageSource, OnModuleInit {
  private limiter?: RateLimiter;

  /** Where uploads are written while they arrive: beside the stored files (so storing one is a rename) when the
   * driver is the filesystem, else the system's temporary directory. */
  private readonly incoming: string;

  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    @Inject(IMAGE_STORAGE) private readonly storage: ImageStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {
    this.incoming = config.storageDriver === 'fs' ? join(config.storageDir, '.incoming') : join(tmpdir(), 'scanlink-incoming');
  }

  onModuleInit(): void {
    // The api process's own RateLimiter (the one behind the REST guard); absent where no limiter runs.
    try {
      this.limiter = this.moduleRef.get(RateLimiter, { strict: false });
    } catch {
      this.limiter = undefined;
    }
  }

  /** What the workspace's uploaded files take, test and live together (`GET /v1/me` `usage`). */
  usage(organizationId: string): Promise<WorkspaceUsage> {
    return new FilesRepository(this.em).usage(organizationId);
  }

  /**
   * Stores an upload. Refusals, each before a byte reaches storage: the plan (403 plan_restricted without uploads),
   * the workspace's upload rate (429), its file count (403 plan_limit_reached, before the body is read), the type
   * (400) and its storage quota (403 plan_limit_reached with limit, current, requested: checked again under the
   * workspace's lock once the size is known, so two uploads cannot both take the last room).
   */
  async upload(auth: AuthContext, req: FastifyRequest): Promise<FileDto> {
    if (auth.plan.dynamic_qr_limit === 0 || auth.plan.storage_bytes === 0 || auth.plan.files === 0) {
      throw new ApiException('plan_restricted', `The ${auth.plan.id} plan includes no file storage; uploads serve file, audio and video codes, on Plus or higher`, {
        plan_id: auth.plan.id,
      });
    }
    await this.limiter?.consumeUpload(auth.organizationId);
    const before = await new FilesRepository(this.em).usage(auth.organizationId);
    if (before.files + 1 > auth.plan.files) throw quotaError(auth, 'files', before.files, 1);
    if (before.storage_bytes >= auth.plan.storage_bytes) throw quotaError(auth, 'storage_bytes', before.storage_bytes, Number(req.headers['content-length']) || 1);
    const { intake, name } = await readUpload(req, { maxBytes: this.config.fileMaxBytes, dir: this.incoming });
    try {
      const type = intake.type;
      if (!type) throw ApiException.invalid('file', `file must be one of ${ALLOWED_TYPES_TEXT} (judged from its bytes, not its name)`);
      const key = fileKey(intake.sha256);
      const file = await this.em.transactional(async (em) => {
        const repo = new FilesRepository(em);
        await lockOrganization(em, auth.organizationId);
        const used = await repo.usage(auth.organizationId);
        if (used.files + 1 > auth.plan.files) throw quotaError(auth, 'files', used.files, 1);
        if (used.storage_bytes + intake.size > auth.plan.storage_bytes) throw quotaError(auth, 'storage_bytes', used.storage_bytes, intake.size);
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
