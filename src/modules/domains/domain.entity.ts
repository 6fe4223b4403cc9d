import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import type { Environment } from '../../common/auth/api-key-format';
import { newId } from '../../common/ids';

export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** A workspace's custom scan host (docs/domains.md). SQL of the table lives in domains.repository.ts. */
@Entity({ tableName: 'domains' })
export class Domain {
  [OptionalProps]?: 'status' | 'isPrimary' | 'checkedAt' | 'verifiedAt' | 'lastError' | 'createdAt' | 'updatedAt';
  @PrimaryKey({ type: 'text' }) id: string = newId('dom');
  @Property({ type: 'text' }) organizationId!: string;
  @Property({ type: 'text' }) environment!: Environment;
  /** Lower case, punycode, no trailing dot; unique across workspaces once verified, and per workspace. */
  @Property({ type: 'text' }) hostname!: string;
  @Property({ type: 'text' }) status: DomainStatus = 'pending';
  @Property({ type: 'boolean' }) isPrimary: boolean = false;
  /** The TXT record's expected value: `scanlink-verify=<random>`. */
  @Property({ type: 'text' }) verificationValue!: string;
  /** Last DNS check (API verify call or the worker's re-check). */
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) checkedAt: Date | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) verifiedAt: Date | null = null;
  /** Why the last check did not verify (`not_found`, `timeout`, `refused`, `servfail`, `lookup_failed`, `taken`,
   * `expired`); null once verified or before any check. */
  @Property({ type: 'text', nullable: true }) lastError: string | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) updatedAt: Date = new Date();
}
