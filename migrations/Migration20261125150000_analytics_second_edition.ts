import { Migration } from '@mikro-orm/migrations';

const DIMENSIONS_BEFORE = `'country','city','device','os','browser','referrer','language'`;
const DIMENSIONS = `${DIMENSIONS_BEFORE},'rule'`;

/**
 * Analytics, second edition (docs/analytics.md):
 * - scans gain `visit_unique` (the first scan of its visitor on the code that UTC day), `expired` (a scan of an expired
 *   link: stored and counted in expired_scans, never in total_scans), `rule_id` (NULL = no smart-URL rule involved,
 *   '' = the default destination of a code with rules) and `arm` (the split arm). Adding columns with constant
 *   defaults rewrites nothing.
 * - scans_org_time_idx serves the workspace export and the live feed (organization, time, id order).
 * - scan_visitors: which visitors (daily-salted HMACs made by the scan host) a code has seen per UTC day, so that the
 *   worker decides uniqueness in its batch statement. Rows older than two days are deleted hourly: the salt that made
 *   them is deleted after 48 hours, and no stable identifier is kept.
 * - scan_days gains `uniques`; days stored before this version have none measured and take their count (every scan
 *   its own visitor, the upper bound).
 * - scan_hours: one row per code and UTC hour (count, uniques, expired, first and last scan), for hourly series, day
 *   boundaries of any time zone, hour-of-week and expired_scans. Filled from the raw scans still kept.
 * - scan_day_values / scan_value_totals accept the dimension 'rule' (value `<rule_id>:<arm>`, '' for none).
 */
export class Migration20261125150000_analytics_second_edition extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table scans
        add column visit_unique boolean not null default false,
        add column expired boolean not null default false,
        add column rule_id text,
        add column arm smallint;`);
    this.addSql('create index scans_org_time_idx on scans (organization_id, scanned_at, id);');
    this.addSql(`
      create table scan_visitors (
        qr_code_id text not null,
        day date not null,
        visitor text not null,
        primary key (qr_code_id, day, visitor)
      );`);
    this.addSql('alter table scan_days add column uniques bigint not null default 0;');
    this.addSql('update scan_days set uniques = count;');
    this.addSql(`
      create table scan_hours (
        qr_code_id text not null references qr_codes(id) on delete cascade,
        hour timestamptz not null,
        count bigint not null default 0,
        uniques bigint not null default 0,
        expired bigint not null default 0,
        first_at timestamptz(3),
        last_at timestamptz(3),
        primary key (qr_code_id, hour)
      ) with (fillfactor = 70);`);
    this.addSql(`
      insert into scan_hours (qr_code_id, hour, count, uniques, first_at, last_at)
      select qr_code_id, date_trunc('hour', scanned_at at time zone 'UTC') at time zone 'UTC', count(*), count(*), min(scanned_at), max(scanned_at)
        from scans s
       where exists (select 1 from qr_codes q where q.id = s.qr_code_id)
       group by 1, 2;`);
    for (const table of ['scan_day_values', 'scan_value_totals']) {
      this.addSql(`alter table ${table} drop constraint if exists ${table}_dimension_check;`);
      this.addSql(`alter table ${table} add constraint ${table}_dimension_check check (dimension in (${DIMENSIONS}));`);
    }
  }

  override async down(): Promise<void> {
    for (const table of ['scan_day_values', 'scan_value_totals']) {
      this.addSql(`delete from ${table} where dimension = 'rule';`);
      this.addSql(`alter table ${table} drop constraint if exists ${table}_dimension_check;`);
      this.addSql(`alter table ${table} add constraint ${table}_dimension_check check (dimension in (${DIMENSIONS_BEFORE}));`);
    }
    this.addSql('drop table if exists scan_hours;');
    this.addSql('alter table scan_days drop column if exists uniques;');
    this.addSql('drop table if exists scan_visitors;');
    this.addSql('drop index if exists scans_org_time_idx;');
    this.addSql('alter table scans drop column visit_unique, drop column expired, drop column rule_id, drop column arm;');
  }
}
