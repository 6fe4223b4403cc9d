import { Entity, JsonType, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import type { Environment } from '../../common/auth/api-key-format';
import { newId } from '../../common/ids';

/** A saved design (docs/templates.md): copied into codes at creation, never linked to them. */
@Entity({ tableName: 'templates' })
export class Template {
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'environment';
  @PrimaryKey({ type: 'text' }) id: string = newId('tpl');
  @Property({ type: 'text' }) organizationId!: string;
  /** The environment of the key that created it: other environment's keys get 404. */
  @Property({ type: 'text' }) environment: Environment = 'live';
  @Property({ type: 'text' }) name!: string;
  /** The normalized design (rendering's parseDesign output; read it back with storedDesign). */
  @Property({ type: JsonType }) design!: object;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) updatedAt: Date = new Date();
}
