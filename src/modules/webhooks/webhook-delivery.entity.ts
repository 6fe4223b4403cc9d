import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

export const DELIVERY_STATUSES = ['pending', 'retrying', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One (event, endpoint) pair: the outbox row and the truth about its delivery. Written by WebhookOutbox (webhook-outbox.ts) in the emitting transaction. */
@Entity({ tableName: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryKey({ type: 'text' }) id!: string;
  @Property({ type: 'text' }) organizationId!: string;
  @Property({ type: 'text' }) endpointId!: string;
  @Property({ type: 'text' }) eventId!: string;
  @Property({ type: 'text' }) eventType!: string;
  @Property({ type: 'text' }) status!: DeliveryStatus;
  @Property({ type: 'integer' }) attempts!: number;
  @Property({ type: 'integer', nullable: true }) statusCode!: number | null;
  @Property({ type: 'text', nullable: true }) responseBody!: string | null;
  @Property({ type: 'integer', nullable: true }) latencyMs!: number | null;
  @Property({ type: 'text', nullable: true }) error!: string | null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) nextAttemptAt!: Date | null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt!: Date;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) updatedAt!: Date;
}
