import { Migration } from '@mikro-orm/migrations';

export class Migration20261122001000_qr_codes extends Migration {
  override async up(): Promise<void> {
    this.addSql('create extension if not exists pg_trgm;');
    this.addSql(`
      create table folders (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        name text not null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index folders_org_created_idx on folders (organization_id, created_at desc, id desc);');
    this.addSql(`
      create table qr_codes (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        kind text not null check (kind in ('dynamic','static')),
        name text not null,
        type text not null,
        short_code text not null,
        domain_id text,
        target jsonb not null,
        design jsonb not null,
        folder_id text references folders(id) on delete set null,
        tags text[] not null default '{}',
        is_active boolean not null default true,
        status text not null default 'live' check (status in ('live','trashed','paused')),
        environment text not null check (environment in ('live','test')),
        scan_count bigint not null default 0,
        lead_count integer not null default 0,
        last_scan_at timestamptz(3),
        image_key text,
        logo_key text,
        gs1_key text,
        deleted_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    // Short codes are unique per host (the default scan host has domain_id null).
    this.addSql(`create unique index qr_codes_short_code_uq on qr_codes (coalesce(domain_id, ''), short_code);`);
    // Keyset pagination: one index per sort, each starting with the organization and status.
    this.addSql('create index qr_codes_org_created_idx on qr_codes (organization_id, status, created_at, id);');
    this.addSql('create index qr_codes_org_updated_idx on qr_codes (organization_id, status, updated_at, id);');
    this.addSql('create index qr_codes_org_name_idx on qr_codes (organization_id, status, name, id);');
    this.addSql('create index qr_codes_org_scans_idx on qr_codes (organization_id, status, scan_count, id);');
    this.addSql('create index qr_codes_org_deleted_idx on qr_codes (organization_id, status, deleted_at, id);');
    this.addSql('create index qr_codes_org_folder_idx on qr_codes (organization_id, folder_id) where folder_id is not null;');
    this.addSql('create index qr_codes_name_trgm_idx on qr_codes using gin (lower(name) gin_trgm_ops);');
    this.addSql(`create index qr_codes_trashed_idx on qr_codes (deleted_at) where status = 'trashed';`);
    this.addSql(`create unique index qr_codes_gs1_key_uq on qr_codes (coalesce(domain_id, ''), gs1_key) where gs1_key is not null and status in ('live','trashed');`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists qr_codes;');
    this.addSql('drop table if exists folders;');
  }
}
