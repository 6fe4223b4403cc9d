import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import { pageByCreatedAt } from '../../common/http/pagination';
import { Folder } from './folder.entity';
import type { FolderDto, ListFoldersQueryDto } from './folders.dto';

export function presentFolder(f: Folder): FolderDto {
  return { id: f.id, object: 'folder', name: f.name, created_at: f.createdAt.toISOString(), updated_at: f.updatedAt.toISOString() };
}

@Injectable()
export class FoldersService {
  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
  ) {}

  async create(auth: AuthContext, name: string): Promise<FolderDto> {
    const folder = this.em.create(Folder, { organizationId: auth.organizationId, environment: auth.environment, name });
    await this.em.persistAndFlush(folder);
    return presentFolder(folder);
  }

  list(auth: AuthContext, query: ListFoldersQueryDto) {
    return pageByCreatedAt(this.em, Folder, { organizationId: auth.organizationId, environment: auth.environment }, { ...query }, this.cursors, presentFolder);
  }

  private async find(auth: AuthContext, id: string): Promise<Folder> {
    const folder = /^fld_[0-9A-Za-z]+$/.test(id) ? await this.em.findOne(Folder, { id, organizationId: auth.organizationId, environment: auth.environment }) : null;
    if (!folder) throw ApiException.notFound('folder', id);
    return folder;
  }

  async retrieve(auth: AuthContext, id: string): Promise<FolderDto> {
    return presentFolder(await this.find(auth, id));
  }

  async rename(auth: AuthContext, id: string, name: string): Promise<FolderDto> {
    const folder = await this.find(auth, id);
    if (folder.name !== name) {
      folder.name = name;
      folder.updatedAt = new Date();
      await this.em.flush();
    }
    return presentFolder(folder);
  }

  /** Codes in the folder move to no folder: qr_codes.folder_id references folders `on delete set null`. */
  async remove(auth: AuthContext, id: string): Promise<{ id: string; object: 'folder'; deleted: true }> {
    const folder = await this.find(auth, id);
    // Through the unit of work, so the audit log records the deletion in the same transaction.
    this.em.remove(folder);
    await this.em.flush();
    return { id, object: 'folder', deleted: true };
  }
}
