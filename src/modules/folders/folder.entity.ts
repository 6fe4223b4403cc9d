import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../common/ids';
import type { Environment } from '../../common/auth/api-key-format';

@Entity({ tableName: 'folders' })
export class Folder {
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'environment';
  @PrimaryKey({ type: 'text' }) id: string = newId('fld');
  @Property({ type: 'text' }) organizationId!: string;
  /** The environment of the key that created it: other environment's keys get 404. */
  @Property({ type: 'text' }) environment: Environment = 'live';
  @Property({ type: 'text' }) name!: string;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) updatedAt: Date = new Date();
}
