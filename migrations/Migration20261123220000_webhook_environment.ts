import { Migration } from '@mikro-orm/migrations';

/** Webhook endpoints and events belong to one environment (test or live), like codes, folders and batches: a key sees
 * only its own, and an event reaches only endpoints of its environment. Existing rows are live. Deliveries need no
 * column: they are reached only through their endpoint. */
export class Migration20261123220000_webhook_environment extends Migration {
  override async up(): Promise<void> {
    for (const table of ['webhook_endpoints', 'events']) {
      this.addSql(`alter table ${table} add column environment text not null default 'live' check (environment in ('live','test'));`);
    }
    this.addSql('drop index if exists webhook_endpoints_org_created_idx;');
    this.addSql('create index webhook_endpoints_org_env_created_idx on webhook_endpoints (organization_id, environment, created_at desc, id desc);');
    this.addSql('drop index if exists webhook_endpoints_enabled_idx;');
    this.addSql(`create index webhook_endpoints_enabled_idx on webhook_endpoints (organization_id, environment) where status = 'enabled';`);
    this.addSql('drop index if exists events_org_created_idx;');
    this.addSql('create index events_org_env_created_idx on events (organization_id, environment, created_at desc, id desc);');
    this.addSql('drop index if exists events_org_type_created_idx;');
    this.addSql('create index events_org_env_type_created_idx on events (organization_id, environment, type, created_at desc, id desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists events_org_env_type_created_idx;');
    this.addSql('create index events_org_type_created_idx on events (organization_id, type, created_at desc, id desc);');
    this.addSql('drop index if exists events_org_env_created_idx;');
    this.addSql('create index events_org_created_idx on events (organization_id, created_at desc, id desc);');
    this.addSql('drop index if exists webhook_endpoints_enabled_idx;');
    this.addSql(`create index webhook_endpoints_enabled_idx on webhook_endpoints (organization_id) where status = 'enabled';`);
    this.addSql('drop index if exists webhook_endpoints_org_env_created_idx;');
    this.addSql('create index webhook_endpoints_org_created_idx on webhook_endpoints (organization_id, created_at desc, id desc);');
    for (const table of ['events', 'webhook_endpoints']) this.addSql(`alter table ${table} drop column environment;`);
  }
}
