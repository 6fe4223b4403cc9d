import { Migration } from '@mikro-orm/migrations';

export class Migration20261122005000_batches extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table batches (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        status text not null default 'processing' check (status in ('processing','completed','failed')),
        environment text not null check (environment in ('live','test')),
        design jsonb,
        total_count integer not null,
        completed_count integer not null default 0,
        error_count integer not null default 0,
        failure_reason text,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        finished_at timestamptz(3)
      );`);
    this.addSql('create index batches_org_created_idx on batches (organization_id, created_at desc, id desc);');
    this.addSql(`create index batches_processing_idx on batches (updated_at) where status = 'processing';`);
    this.addSql(`
      create table batch_items (
        batch_id text not null references batches(id) on delete cascade,
        idx integer not null,
        name text,
        type text,
        request jsonb not null,
        status text not null default 'pending' check (status in ('pending','completed','failed')),
        qr_code_id text not null,
        error text,
        gs1_code text,
        primary key (batch_id, idx)
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists batch_items;');
    this.addSql('drop table if exists batches;');
  }
}
