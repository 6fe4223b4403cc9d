import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import type { CursorCodec } from '../../common/http/cursor';
import type { ListEnvelope } from '../../common/http/list';
import { pageByCreatedAt } from '../../common/http/pagination';
import { hasPrefix } from '../../common/ids';
import { recordAudit } from '../audit/audit.repository';
import { UploadedFile } from './file.entity';

export class FileInUseError extends Error {}

type Owner = Pick<AuthContext, 'organizationId' | 'environment'>;

/** One workspace's file in one environment; null for anything else (foreign ids are simply not found). Other modules
 * (a file target of a QR code) resolve a `file_id` through this. */
export async function findFile(em: EntityManager, owner: Owner, id: string): Promise<UploadedFile | null> {
  if (!hasPrefix(id, 'file')) return null;
  return em.findOne(UploadedFile, { id, organizationId: owner.organizationId, environment: owner.environment });
}

/** Every statement on the `files` table. Built per EntityManager (the request's or a transaction's). */
export class FilesRepository {
  constructor(readonly em: EntityManager) {}

  page<R>(owner: Owner, query: Record<string, unknown>, codec: CursorCodec, present: (f: UploadedFile) => R): Promise<ListEnvelope<R>> {
    return pageByCreatedAt(this.em, UploadedFile, { organizationId: owner.organizationId, environment: owner.environment }, query, codec, present);
  }

  /**
   * Serializes everything that stores or releases the bytes `sha256` until the transaction ends: an upload storing
   * them and the deletion of their last file row cannot interleave (the object would be deleted under a new row).
   */
  async lockContent(sha256: string): Promise<void> {
    await this.em.execute('select pg_advisory_xact_lock(hashtextextended(?, 19))', [`file:${sha256}`]);
  }

  async insert(values: Pick<UploadedFile, 'organizationId' | 'environment' | 'name' | 'contentType' | 'size' | 'sha256'>): Promise<UploadedFile> {
    const file = this.em.create(UploadedFile, values);
    await this.em.flush();
    return file;
  }

  /** Deletes the row; FileInUseError while a code (live, trashed or paused) names it (the foreign key from qr_codes). */
  async delete(file: UploadedFile): Promise<void> {
    try {
      const gone = await this.em.execute<{ id: string }[]>('delete from files where id = ? and organization_id = ? returning id', [file.id, file.organizationId]);
      if (gone[0]) {
        await recordAudit(this.em, { organizationId: file.organizationId, action: 'file.deleted', resource: { type: 'file', id: file.id }, changes: { name: [file.name, null] } });
      }
    } catch (err) {
      if (err instanceof ForeignKeyConstraintViolationException) throw new FileInUseError(file.id);
      throw err;
    }
    this.em.getUnitOfWork().unsetIdentity(file);
  }

  /** What the workspace's files take (both environments, every row counted even when bytes are shared). Inside a
   * transaction, lock the workspace first (lockOrganization) so two uploads cannot both take the last room. */
  async usage(organizationId: string): Promise<{ storage_bytes: number; files: number }> {
    const [row] = await this.em.execute<{ bytes: string; n: string }[]>(
      'select coalesce(sum(size), 0) as bytes, count(*) as n from files where organization_id = ?',
      [organizationId],
    );
    return { storage_bytes: Number(row.bytes), files: Number(row.n) };
  }

  /** Whether any file row (any workspace) still holds these bytes. */
  async contentInUse(sha256: string): Promise<boolean> {
    const rows = await this.em.execute<{ one: number }[]>('select 1 as one from files where sha256 = ? limit 1', [sha256]);
    return rows.length > 0;
  }
}
