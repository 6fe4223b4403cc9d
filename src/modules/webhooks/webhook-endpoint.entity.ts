import { Entity, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import type { Environment } from '../../common/auth/api-key-format';
import { newId } from '../../common/ids';

export const ENDPOINT_STATUSES = ['enabled', 'disabled', 'auto_disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];
export type DisabledReason = 'manual' | 'gone' | 'sustained_failures';
export const ENDPOINT_SOURCES = ['api', 'zapier', 'make', 'n8n'] as const;
export type EndpointSource = (typeof ENDPOINT_SOURCES)[number];

@Entity({ tableName: 'webhook_endpoints' })
export class WebhookEndpoint {
  [OptionalProps]?: 'createdAt' | 'updatedAt' | 'status' | 'consecutiveFailures' | 'source';
  @PrimaryKey({ type: 'text' }) id: string = newId('we');
  @Property({ type: 'text' }) organizationId!: string;
  /** The creating key's environment: only keys of that environment see it, and only that environment's events reach it. */
  @Property({ type: 'text' }) environment!: Environment;
  @Property({ type: 'text' }) url!: string;
  @Property({ type: 'text', nullable: true }) description: string | null = null;
  @Property({ type: 'text[]', columnType: 'text[]' }) events!: string[];
  @Property({ type: 'text' }) status: EndpointStatus = 'enabled';
  @Property({ type: 'text', nullable: true }) disabledReason: DisabledReason | null = null;
  @Property({ type: 'text' }) source: EndpointSource = 'api';
  /** AES-256-GCM sealed (see secrets.ts); never serialized. */
  @Property({ type: 'text', hidden: true }) secretEnc!: string;
  @Property({ type: 'text', nullable: true, hidden: true }) previousSecretEnc: string | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) previousSecretExpiresAt: Date | null = null;
  @Property({ type: 'integer' }) consecutiveFailures: number = 0;
  /** When the current run of consecutive failures began (null while the endpoint succeeds). */
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) failingSince: Date | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) updatedAt: Date = new Date();
}
