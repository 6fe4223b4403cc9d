import { Migration } from '@mikro-orm/migrations';

/**
 * A retired GS1 identifier is kept under its host name instead of its custom domain's id (docs/gs1.md): deleting the
 * domain and claiming the same host name again, by any workspace, gets a new domain id, and the retirement has to
 * outlive that so a printed code never starts resolving to somebody else's links. `domain_key` now holds the custom
 * domain's host name in lower case, or '' for the default scan host. Rows of domains already deleted cannot be mapped
 * and are left as they are (they match no host).
 */
export class Migration20261127000000_gs1_retirement_by_host extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      insert into gs1_retired_identifiers (domain_key, gs1_key, retired_until)
      select lower(d.hostname), r.gs1_key, r.retired_until from gs1_retired_identifiers r join domains d on d.id = r.domain_key
      on conflict (domain_key, gs1_key) do update set retired_until = greatest(gs1_retired_identifiers.retired_until, excluded.retired_until);`);
    this.addSql(`delete from gs1_retired_identifiers r using domains d where d.id = r.domain_key;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      insert into gs1_retired_identifiers (domain_key, gs1_key, retired_until)
      select d.id, r.gs1_key, r.retired_until from gs1_retired_identifiers r join domains d on lower(d.hostname) = r.domain_key
      on conflict (domain_key, gs1_key) do update set retired_until = greatest(gs1_retired_identifiers.retired_until, excluded.retired_until);`);
    this.addSql(`delete from gs1_retired_identifiers r where r.domain_key <> '' and r.domain_key not like 'dom\\_%';`);
  }
}
