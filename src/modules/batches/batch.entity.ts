import { Entity, JsonType, OptionalProps, PrimaryKey, Property } from '@mikro-orm/core';
import type { Environment } from '../../common/auth/api-key-format';

export type BatchStatus = 'processing' | 'completed' | 'failed';
export type BatchItemStatus = 'pending' | 'completed' | 'failed';

@Entity({ tableName: 'batches' })
export class Batch {
  [OptionalProps]?: 'status' | 'completedCount' | 'errorCount' | 'failureReason' | 'createdAt' | 'updatedAt' | 'finishedAt' | 'design';
  @PrimaryKey({ type: 'text' }) id!: string;
  @Property({ type: 'text' }) organizationId!: string;
  @Property({ type: 'text' }) status: BatchStatus = 'processing';
  @Property({ type: 'text' }) environment!: Environment;
  @Property({ type: JsonType, nullable: true }) design: object | null = null;
  @Property({ type: 'integer' }) totalCount!: number;
  @Property({ type: 'integer' }) completedCount: number = 0;
  @Property({ type: 'integer' }) errorCount: number = 0;
  @Property({ type: 'text', nullable: true }) failureReason: string | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) createdAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)' }) updatedAt: Date = new Date();
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) finishedAt: Date | null = null;
}

@Entity({ tableName: 'batch_items' })
export class BatchItem {
  [OptionalProps]?: 'status' | 'error' | 'gs1Code' | 'name' | 'type' | 'claim' | 'claimedUntil' | 'attempts';
  @PrimaryKey({ type: 'text' }) batchId!: string;
  @PrimaryKey({ type: 'integer' }) idx!: number;
  @Property({ type: 'text', nullable: true }) name: string | null = null;
  @Property({ type: 'text', nullable: true }) type: string | null = null;
  /** The item as sent (target, name, folder_id, tags, type): validated and created by the worker. */
  @Property({ type: JsonType }) request!: Record<string, unknown>;
  @Property({ type: 'text' }) status: BatchItemStatus = 'pending';
  /** Reserved when the batch is accepted, so a resumed worker never creates an item's code twice. */
  @Property({ type: 'text' }) qrCodeId!: string;
  @Property({ type: 'text', nullable: true }) error: string | null = null;
  @Property({ type: 'text', nullable: true, fieldName: 'gs1_code' }) gs1Code: string | null = null;
  /** The chunk claim of the worker creating the item, until `claimedUntil` (docs/batches.md). */
  @Property({ type: 'text', nullable: true }) claim: string | null = null;
  @Property({ type: 'datetime', columnType: 'timestamptz(3)', nullable: true }) claimedUntil: Date | null = null;
  /** How many times a worker claimed it: an item that keeps a worker from finishing fails after MAX_ITEM_ATTEMPTS. */
  @Property({ type: 'integer' }) attempts: number = 0;
}
