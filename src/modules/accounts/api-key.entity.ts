import { OptionalProps, ArrayType, Entity, PrimaryKey, Property } from '@mikro-orm/core';
import { newId } from '../../common/ids';

import type { Environment } from '../../common/auth/api-key-format';

@Entity({ tableName: 'api_keys' })
export class ApiKey {
  [OptionalProps]?: 'createdAt' | 'expiresAt' | 'lastUsedAt' | 'revokedAt';
  @PrimaryKey({ type: 'text' }) id: string = newId('key');
  @Property({ type: 'text' }) organizationId!: string;
  @Property({ type: 'text' }) name!: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  @Property({ type: 'text', unique: true }) keyHash!: string;
  @Property({ type: 'text' }) keyPrefix!: string;
  @Property({ type: ArrayType, columnType: 'text[]' }) scopes!: string[];
  @Property({ type: 'text' }) environment!: Environment;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) expiresAt: Date | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) lastUsedAt: Date | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) revokedAt: Date | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
}
