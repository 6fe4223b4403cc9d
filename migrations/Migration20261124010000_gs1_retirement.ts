import { Migration } from '@mikro-orm/migrations';

/**
 * GS1 identifiers retired by a permanent deletion (docs/gs1.md): for GS1_RETIREMENT_DAYS nobody may create a dynamic
 * GS1 code with that identifier on that host again, so a printed code never starts resolving to someone else's links.
 * `domain_key` was the custom domain's id, or '' for the default scan host; since Migration20261127000000 it is the host name.
 */
export class Migration20261124010000_gs1_retirement extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table gs1_retired_identifiers (
        domain_key text not null,
        gs1_key text not null,
        retired_until timestamptz(3) not null,
        primary key (domain_key, gs1_key)
      );`);
    // The resolver's cache fill reads a host's code by identifier in any state (the unique index covers live and
    // trashed codes only).
    this.addSql(`create index qr_codes_gs1_lookup_idx on qr_codes (coalesce(domain_id, ''), gs1_key) where gs1_key is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists qr_codes_gs1_lookup_idx;');
    this.addSql('drop table if exists gs1_retired_identifiers;');
  }
}
