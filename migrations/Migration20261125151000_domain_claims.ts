import { Migration } from '@mikro-orm/migrations';

/**
 * Pending domain claims block nobody (docs/domains.md): several workspaces may claim one host name, the first to pass
 * the TXT check takes it, and the others become `failed` with `last_error = 'taken'`. A host name is unique across
 * workspaces once verified (the partial unique index decides between two checks passing at once), and a workspace
 * holds one claim per host name. `last_error` records why the last check did not verify: `not_found`, `timeout`,
 * `refused`, `servfail`, `lookup_failed`, `taken`, `expired`.
 */
export class Migration20261125151000_domain_claims extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index if exists domains_hostname_uq;');
    this.addSql(`create unique index domains_hostname_verified_uq on domains (hostname) where status = 'verified';`);
    this.addSql('create unique index domains_org_hostname_uq on domains (organization_id, hostname);');
    this.addSql('create index domains_hostname_idx on domains (hostname);');
    this.addSql('alter table domains add column last_error text;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table domains drop column if exists last_error;');
    this.addSql('drop index if exists domains_hostname_idx;');
    this.addSql('drop index if exists domains_org_hostname_uq;');
    this.addSql('drop index if exists domains_hostname_verified_uq;');
    this.addSql('create unique index domains_hostname_uq on domains (hostname);');
  }
}
