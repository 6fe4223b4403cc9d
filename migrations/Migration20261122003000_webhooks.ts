import { Migration } from '@mikro-orm/migrations';

/** Webhook endpoints, the event archive and the delivery outbox (docs/webhooks.md). */
export class Migration20261122003000_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_endpoints (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        url text not null,
        description text,
        events text[] not null,
        status text not null default 'enabled' check (status in ('enabled','disabled','auto_disabled')),
        disabled_reason text check (disabled_reason in ('manual','gone','sustained_failures')),
        source text not null default 'api' check (source in ('api','zapier','make','n8n')),
        secret_enc text not null,
        previous_secret_enc text,
        previous_secret_expires_at timestamptz(3),
        consecutive_failures integer not null default 0,
        failing_since timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index webhook_endpoints_org_created_idx on webhook_endpoints (organization_id, created_at desc, id desc);');
    // emit(): "which enabled endpoints of this workspace subscribe to this type" is one probe of this partial index.
    this.addSql(`create index webhook_endpoints_enabled_idx on webhook_endpoints (organization_id) where status = 'enabled';`);
    this.addSql(`
      create table events (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        type text not null,
        payload text not null,
        created_at timestamptz(3) not null
      );`);
    this.addSql('create index events_org_created_idx on events (organization_id, created_at desc, id desc);');
    this.addSql('create index events_org_type_created_idx on events (organization_id, type, created_at desc, id desc);');
    this.addSql('create index events_created_idx on events (created_at);');
    this.addSql(`
      create table webhook_deliveries (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        endpoint_id text not null references webhook_endpoints(id) on delete cascade,
        event_id text not null references events(id) on delete cascade,
        event_type text not null,
        status text not null default 'pending' check (status in ('pending','retrying','succeeded','failed')),
        attempts integer not null default 0,
        status_code integer,
        response_body text,
        latency_ms integer,
        error text,
        next_attempt_at timestamptz(3),
        created_at timestamptz(3) not null,
        updated_at timestamptz(3) not null
      );`);
    this.addSql('create index webhook_deliveries_endpoint_created_idx on webhook_deliveries (endpoint_id, created_at desc, id desc);');
    this.addSql('create index webhook_deliveries_endpoint_status_idx on webhook_deliveries (endpoint_id, status, created_at desc, id desc);');
    this.addSql('create index webhook_deliveries_event_idx on webhook_deliveries (event_id);');
    // The sweeper's scan: only open deliveries are in this index.
    this.addSql(`create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where status in ('pending','retrying');`);
    this.addSql('create index webhook_deliveries_created_idx on webhook_deliveries (created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists webhook_deliveries;');
    this.addSql('drop table if exists events;');
    this.addSql('drop table if exists webhook_endpoints;');
  }
}
