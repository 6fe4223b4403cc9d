import { OptionalProps, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../common/ids';
import type { PlanId } from '../../common/auth/plan';

@Entity({ tableName: 'organizations' })
export class Organization {
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'emailVerified';
  @PrimaryKey({ type: 'text' }) id: string = newId('org');
  @Property({ type: 'text' }) name!: string;
  @Property({ type: 'text' }) plan!: PlanId;
  @Property({ type: 'text' }) ownerEmail!: string;
  @Property({ type: 'boolean' }) emailVerified: boolean = true;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', onUpdate: () => new Date() }) updatedAt: Date = new Date();
}
