import { Migration } from '@mikro-orm/migrations';

/** Custom domains (docs/domains.md), and the foreign key from qr_codes.domain_id, which existed without one. */
export class Migration20261123210000_domains extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table domains (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        environment text not null check (environment in ('live','test')),
        hostname text not null check (hostname = lower(hostname)),
        status text not null default 'pending' check (status in ('pending','verified','failed')),
        is_primary boolean not null default false,
        verification_value text not null,
        checked_at timestamptz(3),
        verified_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    // One workspace per host name, whatever the environment: the unique index is what makes concurrent claims safe.
    this.addSql('create unique index domains_hostname_uq on domains (hostname);');
    // At most one primary domain per workspace and environment.
    this.addSql('create unique index domains_primary_uq on domains (organization_id, environment) where is_primary;');
    this.addSql('create index domains_org_created_idx on domains (organization_id, environment, created_at desc, id desc);');
    // The worker's re-check: pending domains, least recently checked first.
    this.addSql(`create index domains_pending_idx on domains (checked_at nulls first) where status = 'pending';`);
    // A domain cannot go while any code row (live, trashed or paused) names it; "no action" is checked at the end of the
    // statement, so deleting a workspace (which cascades to both tables) still works.
    this.addSql('alter table qr_codes add constraint qr_codes_domain_id_fk foreign key (domain_id) references domains(id);');
    this.addSql('create index qr_codes_domain_idx on qr_codes (domain_id) where domain_id is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists qr_codes_domain_idx;');
    this.addSql('alter table qr_codes drop constraint if exists qr_codes_domain_id_fk;');
    this.addSql('drop table if exists domains;');
  }
}
