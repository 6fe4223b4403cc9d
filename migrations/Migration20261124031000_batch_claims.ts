import { Migration } from '@mikro-orm/migrations';

/**
 * Batches at speed (docs/batches.md):
 * - batch items are claimed in chunks by a worker for a short lease (`claim`, `claimed_until`), so several workers
 *   share a batch and a killed worker's chunk is taken over when its lease runs out;
 * - `qr_capacity_reservations` holds the dynamic capacity an accepted batch has not used yet, so a single creation
 *   cannot take it meanwhile.
 */
export class Migration20261124031000_batch_claims extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table batch_items add column claim text, add column claimed_until timestamptz(3), add column attempts integer not null default 0;');
    this.addSql(`create index batch_items_pending_idx on batch_items (batch_id, idx) where status = 'pending';`);
    this.addSql(`
      create table qr_capacity_reservations (
        holder text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        dynamic_count integer not null check (dynamic_count >= 0),
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index qr_capacity_reservations_org_idx on qr_capacity_reservations (organization_id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists qr_capacity_reservations;');
    this.addSql('drop index if exists batch_items_pending_idx;');
    this.addSql('alter table batch_items drop column claim, drop column claimed_until, drop column attempts;');
  }
}
