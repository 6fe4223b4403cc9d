import { Migration } from '@mikro-orm/migrations';

/**
 * GS1 ownership (docs/gs1.md "Ownership"): on a host, the workspace holding any identifier of a primary key (a GTIN)
 * owns that key's whole subtree, and on the default scan host an operator may require granted company prefixes.
 *
 * - `gs1_prefixes`: company prefixes the operator granted (`npm run -s cli -- gs1:prefix:add`), one workspace each.
 * - `qr_codes_gs1_primary_idx`: live and trashed dynamic GS1 codes by host and primary key (`/01/<gtin14>`), for the
 *   ownership check and `gs1:conflicts`.
 * - the trigger `qr_codes_gs1_owner`: the race-proof backstop of the API's own check. Before a row starts holding a
 *   GS1 identifier (inserted live, or restored from paused), it takes a transaction lock on (host, primary key) and
 *   refuses the row when another workspace holds a live or trashed identifier under the same primary key, with
 *   SQLSTATE 23505 and the constraint name `qr_codes_gs1_owner` (the API answers 409 gs1_identifier_taken). Rows that
 *   already conflict are left as they are (reported by `npm run -s cli -- gs1:conflicts`), and updates that do not
 *   change who holds what (a PATCH, trashing) do not fire it.
 */
export class Migration20261125150000_gs1_ownership extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table gs1_prefixes (
        prefix text primary key check (prefix ~ '^[0-9]{4,12}$'),
        organization_id text not null references organizations(id) on delete cascade,
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index gs1_prefixes_org_idx on gs1_prefixes (organization_id);');
    this.addSql(`
      create index qr_codes_gs1_primary_idx on qr_codes (coalesce(domain_id, ''), split_part(gs1_key, '/', 2), split_part(gs1_key, '/', 3))
        where gs1_key is not null and status in ('live','trashed');`);
    this.addSql(`
      create function qr_codes_gs1_owner_check() returns trigger language plpgsql as $$
      begin
        perform pg_advisory_xact_lock(hashtextextended('gs1-owner:' || coalesce(new.domain_id, '') || '/' || split_part(new.gs1_key, '/', 2) || '/' || split_part(new.gs1_key, '/', 3), 0));
        if exists (
          select 1 from qr_codes c
           where coalesce(c.domain_id, '') = coalesce(new.domain_id, '')
             and split_part(c.gs1_key, '/', 2) = split_part(new.gs1_key, '/', 2)
             and split_part(c.gs1_key, '/', 3) = split_part(new.gs1_key, '/', 3)
             and c.gs1_key is not null and c.status in ('live','trashed')
             and c.organization_id <> new.organization_id
        ) then
          raise exception 'GS1 primary key % is held by another workspace on this host', split_part(new.gs1_key, '/', 3)
            using errcode = '23505', constraint = 'qr_codes_gs1_owner', table = 'qr_codes';
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create trigger qr_codes_gs1_owner_insert before insert on qr_codes
        for each row when (new.gs1_key is not null and new.status in ('live','trashed'))
        execute function qr_codes_gs1_owner_check();`);
    this.addSql(`
      create trigger qr_codes_gs1_owner_update before update of status, gs1_key, domain_id, organization_id on qr_codes
        for each row when (new.gs1_key is not null and new.status in ('live','trashed')
          and (old.status not in ('live','trashed') or old.gs1_key is distinct from new.gs1_key
               or old.domain_id is distinct from new.domain_id or old.organization_id <> new.organization_id))
        execute function qr_codes_gs1_owner_check();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists qr_codes_gs1_owner_update on qr_codes;');
    this.addSql('drop trigger if exists qr_codes_gs1_owner_insert on qr_codes;');
    this.addSql('drop function if exists qr_codes_gs1_owner_check();');
    this.addSql('drop index if exists qr_codes_gs1_primary_idx;');
    this.addSql('drop table if exists gs1_prefixes;');
  }
}
