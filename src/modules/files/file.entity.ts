import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import type { Environment } from '../../common/auth/api-key-format';
import { newId } from '../../common/ids';

/** An uploaded file (docs/files.md). Its bytes live in storage under `file-<sha256>`, shared by uploads of the same
 * bytes; SQL of the table lives in files.repository.ts. */
@Entity({ tableName: 'files' })
export class UploadedFile {
  [OptionalProps]?: 'createdAt';
  @PrimaryKey({ type: 'text' }) id: string = newId('file');
  @Property({ type: 'text' }) organizationId!: string;
  @Property({ type: 'text' }) environment!: Environment;
  /** The client's file name, cleaned (no path, no control characters). */
  @Property({ type: 'text' }) name!: string;
  /** Sniffed from the bytes, never taken from the client. */
  @Property({ type: 'text' }) contentType!: string;
  @Property({ type: 'bigint', columnType: 'bigint' }) size!: number;
  @Property({ type: 'text' }) sha256!: string;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
}
