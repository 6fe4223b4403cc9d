import { Migration } from '@mikro-orm/migrations';

const DIMENSIONS = `'country','city','device','os','browser','referrer','language','rule'`;

/**
 * Rollups per workspace and environment (docs/analytics.md, "Workspace rollups"): what scan_days, scan_hours,
 * scan_day_values and scan_value_totals hold per code, summed over every dynamic code of an (organization,
 * environment), so that workspace analytics over the whole workspace read one row per day, hour or value instead of
 * one per code. The worker writes them in the same batch statement as the per-code rollups.
 * - No first/last scan times: they cannot be taken back when a code is deleted, and reads find them in the per-code
 *   rollups of the first and last day (or hour) that has scans.
 * - Deleting a code takes its per-code rollups back out of them (qr_codes_unroll_scans, before the row goes and its
 *   per-code rollups with it), so they always equal the sum over the codes that exist. A workspace's rows go with it.
 * - fillfactor 70, no index beyond the primary key: counters are updated in place (HOT), like the per-code rollups.
 * - Filled from the per-code rollups in the migration's transaction. Run it with the workers stopped, as the other
 *   rollup migrations: a batch an old worker stored after the fill would be missing from the workspace rollups.
 */
export class Migration20261126010000_workspace_rollups extends Migration {
  override async up(): Promise<void> {
    const owner = `organization_id text not null references organizations(id) on delete cascade, environment text not null`;
    this.addSql(`
      create table scan_org_days (
        ${owner}, day date not null,
        count bigint not null default 0, uniques bigint not null default 0,
        primary key (organization_id, environment, day)
      ) with (fillfactor = 70);`);
    this.addSql(`
      create table scan_org_hours (
        ${owner}, hour timestamptz not null,
        count bigint not null default 0, uniques bigint not null default 0, expired bigint not null default 0,
        primary key (organization_id, environment, hour)
      ) with (fillfactor = 70);`);
    this.addSql(`
      create table scan_org_day_values (
        ${owner}, dimension text not null check (dimension in (${DIMENSIONS})), day date not null, value text not null,
        count bigint not null,
        primary key (organization_id, environment, dimension, day, value)
      ) with (fillfactor = 70);`);
    this.addSql(`
      create table scan_org_value_totals (
        ${owner}, dimension text not null check (dimension in (${DIMENSIONS})), value text not null,
        count bigint not null,
        primary key (organization_id, environment, dimension, value)
      ) with (fillfactor = 70);`);
    this.addSql(`
      insert into scan_org_days (organization_id, environment, day, count, uniques)
      select q.organization_id, q.environment, d.day, sum(d.count), sum(d.uniques)
        from scan_days d join qr_codes q on q.id = d.qr_code_id group by 1, 2, 3;`);
    this.addSql(`
      insert into scan_org_hours (organization_id, environment, hour, count, uniques, expired)
      select q.organization_id, q.environment, h.hour, sum(h.count), sum(h.uniques), sum(h.expired)
        from scan_hours h join qr_codes q on q.id = h.qr_code_id group by 1, 2, 3;`);
    this.addSql(`
      insert into scan_org_day_values (organization_id, environment, dimension, day, value, count)
      select q.organization_id, q.environment, v.dimension, v.day, v.value, sum(v.count)
        from scan_day_values v join qr_codes q on q.id = v.qr_code_id group by 1, 2, 3, 4, 5;`);
    this.addSql(`
      insert into scan_org_value_totals (organization_id, environment, dimension, value, count)
      select q.organization_id, q.environment, t.dimension, t.value, sum(t.count)
        from scan_value_totals t join qr_codes q on q.id = t.qr_code_id group by 1, 2, 3, 4;`);
    // Before the row is deleted (its per-code rollups are still there, and the row lock waited for any batch storing
    // scans of it); each statement of the function sees what committed before it.
    this.addSql(`
      create or replace function qr_codes_unroll_scans() returns trigger language plpgsql as $$
      begin
        update scan_org_days o set count = o.count - d.count, uniques = o.uniques - d.uniques
          from scan_days d
         where d.qr_code_id = old.id and o.organization_id = old.organization_id and o.environment = old.environment and o.day = d.day;
        update scan_org_hours o set count = o.count - h.count, uniques = o.uniques - h.uniques, expired = o.expired - h.expired
          from scan_hours h
         where h.qr_code_id = old.id and o.organization_id = old.organization_id and o.environment = old.environment and o.hour = h.hour;
        update scan_org_day_values o set count = o.count - v.count
          from scan_day_values v
         where v.qr_code_id = old.id and o.organization_id = old.organization_id and o.environment = old.environment
           and o.dimension = v.dimension and o.day = v.day and o.value = v.value;
        update scan_org_value_totals o set count = o.count - t.count
          from scan_value_totals t
         where t.qr_code_id = old.id and o.organization_id = old.organization_id and o.environment = old.environment
           and o.dimension = t.dimension and o.value = t.value;
        return old;
      end $$;`);
    this.addSql(`
      create trigger qr_codes_unroll_scans before delete on qr_codes
        for each row when (old.kind = 'dynamic') execute function qr_codes_unroll_scans();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists qr_codes_unroll_scans on qr_codes;');
    this.addSql('drop function if exists qr_codes_unroll_scans();');
    for (const table of ['scan_org_value_totals', 'scan_org_day_values', 'scan_org_hours', 'scan_org_days']) this.addSql(`drop table if exists ${table};`);
  }
}
