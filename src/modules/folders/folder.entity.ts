import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../common/ids';

@Entity({ tableName: 'folders' })
export class Folder {
  [OptionalProps]?: 'createdAt' | 'updatedAt';
  @PrimaryKey({ type: 'text' }) id: string = newId('fld');
  @Property({ type: 'text' }) organizationId!: string;
  @Property({ type: 'text' }) name!: string;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) updatedAt: Date = new Date();
}
