import { ArrayType, Entity, JsonType, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import type { Environment } from '../../common/auth/api-key-format';

export type QrKind = 'dynamic' | 'static';
/** live = in the API and dashboard; trashed = in the Trash (deleted_at set); paused = set aside by a plan downgrade. */
export type QrStatus = 'live' | 'trashed' | 'paused';

@Entity({ tableName: 'qr_codes' })
export class QrCode {
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'deletedAt' | 'scanCount' | 'leadCount' | 'isActive' | 'status' | 'folderId' |
    'tags' | 'imageKey' | 'logoKey' | 'domainId' | 'domainHostname' | 'lastScanAt' | 'gs1Key' |
    'expiresAt' | 'maxScans' | 'expiredUrl' | 'passwordHash';

  @PrimaryKey({ type: 'text' }) id!: string;
  @Property({ type: 'text' }) organizationId!: string;
  @Property({ type: 'text' }) kind!: QrKind;
  @Property({ type: 'text' }) name!: string;
  /** The target type: url, youtube, …, text, wifi, vcard, linkpage, form, menupage, gs1 … */
  @Property({ type: 'text' }) type!: string;
  @Property({ type: 'text' }) shortCode!: string;
  /** The custom domain the code lives on (dynamic codes); null = the default scan host. Fixed at creation. */
  @Property({ type: 'text', nullable: true }) domainId: string | null = null;
  /** That domain's host name, copied at creation (host names never change): the short URL's host. */
  @Property({ type: 'text', nullable: true }) domainHostname: string | null = null;
  /** The stored target fields of `type` (see docs/targets.md); response-only fields are derived. */
  @Property({ type: JsonType }) target!: Record<string, unknown>;
  /** The normalized design (see docs/design.md; read it back with storedDesign); the logo's bytes live in storage under
   * logoKey. */
  @Property({ type: JsonType }) design!: object;
  @Property({ type: 'text', nullable: true }) folderId: string | null = null;
  @Property({ type: ArrayType, columnType: 'text[]' }) tags: string[] = [];
  @Property({ type: 'boolean' }) isActive: boolean = true;
  @Property({ type: 'text' }) status: QrStatus = 'live';
  @Property({ type: 'text' }) environment!: Environment;
  @Property({ type: 'bigint', columnType: 'bigint' }) scanCount: number = 0;
  @Property({ type: 'integer' }) leadCount: number = 0;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) lastScanAt: Date | null = null;
  @Property({ type: 'text', nullable: true }) imageKey: string | null = null;
  @Property({ type: 'text', nullable: true }) logoKey: string | null = null;
  /** GS1 identifier (primary key + qualifiers) for GS1 codes, unique per host among live and trashed codes. */
  @Property({ type: 'text', nullable: true, fieldName: 'gs1_key' }) gs1Key: string | null = null;
  /** Link controls (docs/link-controls.md): after expiresAt or once maxScans scans are counted a scan is expired. */
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) expiresAt: Date | null = null;
  @Property({ type: 'integer', nullable: true }) maxScans: number | null = null;
  @Property({ type: 'text', nullable: true }) expiredUrl: string | null = null;
  /** argon2id hash; never leaves the api (the scan host gets a tag derived from it, to invalidate old cookies). */
  @Property({ type: 'text', nullable: true }) passwordHash: string | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) deletedAt: Date | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) updatedAt: Date = new Date();
}
