import { Migration } from '@mikro-orm/migrations';

/**
 * All-time counts per code, dimension and value: an unfiltered analytics request reads the top values here instead
 * of summing every day of scan_day_values, so it costs the same at 1,000,000 scans as at 100.
 */
export class Migration20261123100000_scan_totals extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table scan_value_totals (
        qr_code_id text not null references qr_codes(id) on delete cascade,
        dimension text not null check (dimension in ('country','city','device','os','browser','referrer','language')),
        value text not null,
        count bigint not null,
        primary key (qr_code_id, dimension, value)
      );`);
    this.addSql('create index scan_value_totals_top_idx on scan_value_totals (qr_code_id, dimension, count desc);');
    this.addSql(`
      insert into scan_value_totals (qr_code_id, dimension, value, count)
      select qr_code_id, dimension, value, sum(count) from scan_day_values group by 1, 2, 3;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists scan_value_totals;');
  }
}
