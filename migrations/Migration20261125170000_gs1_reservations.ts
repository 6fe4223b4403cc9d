import { Migration } from '@mikro-orm/migrations';

/** An accepted batch also reserves room for its dynamic GS1 items (the plan's GS1 limit, counted apart from the QR
 * limit), so a single GS1 creation cannot take it meanwhile and the batch is refused up front when it does not fit. */
export class Migration20261125170000_gs1_reservations extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table qr_capacity_reservations add column gs1_count integer not null default 0 check (gs1_count >= 0);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table qr_capacity_reservations drop column gs1_count;');
  }
}
