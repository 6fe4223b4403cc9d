import { Migration } from '@mikro-orm/migrations';

/**
 * Cheaper scan ingestion in the worst case (a batch spread over many codes and days; docs/analytics.md):
 * - The rollup tables keep 30 % of each page free (fillfactor 70). The worker updates their counts in place, and an
 *   update whose new row version fits on its page and changes no indexed column is a HOT update: it adds no index
 *   entry. At fillfactor 100 the pages were full, so each of the ~27,000 counter updates of a worst-case batch of
 *   10,000 scans also wrote a new primary-key entry. Existing pages keep their layout until rewritten (VACUUM FULL or
 *   pg_repack, optional); new pages use the setting at once, so this is safe on a live database (the ALTER takes
 *   only a SHARE UPDATE EXCLUSIVE lock, which does not block reads or writes).
 * - Raw scans lose their foreign key to qr_codes (its check ran once per inserted scan, about 5 % of storing a
 *   batch). What it guaranteed still holds:
 *   - no scan of a deleted code is stored: the worker inserts only scans whose code it found and locked (FOR NO KEY
 *     UPDATE) in the same statement, and a delete must wait for that lock, so a code is either still there when its
 *     scans commit or already gone (then its scans drop out of the join);
 *   - deleting a code deletes its raw scans: a statement-level trigger replaces ON DELETE CASCADE (one set-based
 *     delete per statement, through scans_code_time_idx). It runs after the code rows are gone and, in READ
 *     COMMITTED, sees scans committed by a worker the delete waited for.
 *   The rollup tables keep their foreign keys: a batch mostly updates their rows, which runs no check.
 * - scan_value_totals loses its index on (qr_code_id, dimension, count desc). No read could use its order: the
 *   analytics query groups a dimension's values by reported name ('' and "Unknown" are one) before it sorts by count,
 *   so it reads every row of (code, dimension) either way, and the primary key (qr_code_id, dimension, value) gives
 *   the same range. Yet every count update had to add an entry to it (an update of an indexed column is never HOT),
 *   about 15 % of a worst-case batch. DROP INDEX CONCURRENTLY cannot run in the migration's transaction; a plain drop
 *   holds an exclusive lock on the table for a moment (no scan of it is needed).
 */
export class Migration20261125010000_scan_ingest_speed extends Migration {
  override async up(): Promise<void> {
    for (const table of ['scan_days', 'scan_day_values', 'scan_value_totals']) this.addSql(`alter table ${table} set (fillfactor = 70);`);
    this.addSql(`
      create or replace function qr_codes_delete_scans() returns trigger language plpgsql as $$
      begin
        delete from scans s using gone g where s.qr_code_id = g.id;
        return null;
      end $$;`);
    this.addSql(`
      create trigger qr_codes_delete_scans after delete on qr_codes
        referencing old table as gone for each statement execute function qr_codes_delete_scans();`);
    this.addSql('drop index if exists scan_value_totals_top_idx;');
    // Dropped after the trigger exists, in the same transaction: no delete can slip between the two.
    this.addSql('alter table scans drop constraint if exists scans_qr_code_id_fkey;');
  }

  override async down(): Promise<void> {
    this.addSql('delete from scans s where not exists (select 1 from qr_codes q where q.id = s.qr_code_id);');
    this.addSql(
      'alter table scans add constraint scans_qr_code_id_fkey foreign key (qr_code_id) references qr_codes(id) on delete cascade;',
    );
    this.addSql('create index if not exists scan_value_totals_top_idx on scan_value_totals (qr_code_id, dimension, count desc);');
    this.addSql('drop trigger if exists qr_codes_delete_scans on qr_codes;');
    this.addSql('drop function if exists qr_codes_delete_scans();');
    for (const table of ['scan_days', 'scan_day_values', 'scan_value_totals']) this.addSql(`alter table ${table} reset (fillfactor);`);
  }
}
