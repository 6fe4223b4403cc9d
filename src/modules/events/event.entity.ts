import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { Environment } from '../../common/auth/api-key-format';
import type { EventType } from './event-types';

/** One archived event. `payload` is the exact delivery body (the serialized envelope), written once at emit time. */
@Entity({ tableName: 'events' })
export class EventRecord {
  @PrimaryKey({ type: 'text' }) id!: string;
  @Property({ type: 'text' }) organizationId!: string;
  /** The environment of the object or key that caused the event; only keys of that environment see it. */
  @Property({ type: 'text' }) environment!: Environment;
  @Property({ type: 'text' }) type!: EventType;
  @Property({ type: 'text', lazy: false }) payload!: string;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt!: Date;
}
