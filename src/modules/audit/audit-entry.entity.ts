import { OptionalProps, Entity, JsonType, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../common/ids';

/** One change of the audit log (docs/audit-log.md). */
@Entity({ tableName: 'audit_log' })
export class AuditEntry {
  [OptionalProps]?: 'createdAt' | 'actorEmail' | 'requestId' | 'ipCountry';
  @PrimaryKey({ type: 'text' }) id: string = newId('aud');
  @Property({ type: 'text' }) organizationId!: string;
  @Property({ type: 'text' }) actorType!: 'user' | 'api_key' | 'system';
  @Property({ type: 'text' }) actorId!: string;
  @Property({ type: 'text', nullable: true }) actorEmail: string | null = null;
  @Property({ type: 'text' }) action!: string;
  @Property({ type: 'text' }) resourceType!: string;
  @Property({ type: 'text' }) resourceId!: string;
  @Property({ type: JsonType }) changes!: Record<string, [unknown, unknown]>;
  @Property({ type: 'text', nullable: true }) requestId: string | null = null;
  @Property({ type: 'text', nullable: true }) ipCountry: string | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
}
