import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table organizations (
        id text primary key,
        name text not null,
        plan text not null check (plan in ('free','plus','pro','ultra','agency')),
        owner_email text not null,
        email_verified boolean not null default true,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql(`
      create table api_keys (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        name text not null,
        key_hash text not null unique,
        key_prefix text not null,
        scopes text[] not null,
        environment text not null check (environment in ('live','test')),
        expires_at timestamptz(3),
        last_used_at timestamptz(3),
        revoked_at timestamptz(3),
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql(`create index api_keys_org_created_idx on api_keys (organization_id, created_at desc, id desc);`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists api_keys;');
    this.addSql('drop table if exists organizations;');
  }
}
