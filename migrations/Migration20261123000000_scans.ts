import { Migration } from '@mikro-orm/migrations';

/** Scan analytics (raw scans with retention + daily rollups) and form leads. No column can hold an IP address. */
export class Migration20261123000000_scans extends Migration {
  override async up(): Promise<void> {
    // Raw scans: kept SCAN_RETENTION_DAYS; analytics reads the rollups below, never this table.
    this.addSql(`
      create table scans (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        qr_code_id text not null references qr_codes(id) on delete cascade,
        scanned_at timestamptz(3) not null,
        country text,
        city text,
        device text,
        os text,
        browser text,
        referrer text,
        language text
      );`);
    this.addSql('create index scans_code_time_idx on scans (qr_code_id, scanned_at desc);');
    this.addSql('create index scans_time_idx on scans (scanned_at);');
    // One row per code and UTC day: count and first/last scan time of that day.
    this.addSql(`
      create table scan_days (
        qr_code_id text not null references qr_codes(id) on delete cascade,
        day date not null,
        count bigint not null,
        first_at timestamptz(3) not null,
        last_at timestamptz(3) not null,
        primary key (qr_code_id, day)
      );`);
    // One row per code, dimension, UTC day and value ('' = unknown, reported as "Unknown").
    this.addSql(`
      create table scan_day_values (
        qr_code_id text not null references qr_codes(id) on delete cascade,
        dimension text not null check (dimension in ('country','city','device','os','browser','referrer','language')),
        day date not null,
        value text not null,
        count bigint not null,
        primary key (qr_code_id, dimension, day, value)
      );`);
    this.addSql(`
      create table leads (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        qr_code_id text not null references qr_codes(id) on delete cascade,
        fields jsonb not null,
        scan_context jsonb,
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index leads_code_created_idx on leads (qr_code_id, created_at desc, id desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists leads;');
    this.addSql('drop table if exists scan_day_values;');
    this.addSql('drop table if exists scan_days;');
    this.addSql('drop table if exists scans;');
  }
}
