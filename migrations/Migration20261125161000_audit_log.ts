import { Migration } from '@mikro-orm/migrations';

/** The audit log (docs/audit-log.md): one row per change, kept 365 days. No foreign key to organizations: an entry is
 * written in the same flush as the change it records, whatever order the ORM inserts rows in, and outlives nothing
 * but its retention. */
export class Migration20261125161000_audit_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table audit_log (
        id text primary key,
        organization_id text not null,
        actor_type text not null check (actor_type in ('user','api_key','system')),
        actor_id text not null,
        actor_email text,
        action text not null,
        resource_type text not null,
        resource_id text not null,
        changes jsonb not null default '{}'::jsonb,
        request_id text,
        ip_country text,
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index audit_log_org_created_idx on audit_log (organization_id, created_at desc, id desc);');
    this.addSql('create index audit_log_resource_idx on audit_log (organization_id, resource_id, created_at desc, id desc);');
    this.addSql('create index audit_log_actor_idx on audit_log (organization_id, actor_id, created_at desc, id desc);');
    this.addSql('create index audit_log_created_idx on audit_log (created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists audit_log;');
  }
}
