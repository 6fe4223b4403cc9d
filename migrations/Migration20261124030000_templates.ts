import { Migration } from '@mikro-orm/migrations';

/** Design templates (docs/templates.md): one environment each, like folders. */
export class Migration20261124030000_templates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table templates (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        environment text not null default 'live' check (environment in ('live','test')),
        name text not null,
        design jsonb not null,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index templates_org_env_created_idx on templates (organization_id, environment, created_at desc, id desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists templates;');
  }
}
