import { Migration } from '@mikro-orm/migrations';

/** Link controls of dynamic codes (docs/link-controls.md): expiry date, scan limit, expired URL, password hash. */
export class Migration20261125120000_link_controls extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table qr_codes
        add column expires_at timestamptz(3),
        add column max_scans integer check (max_scans between 1 and 10000000),
        add column expired_url text,
        add column password_hash text;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table qr_codes drop column if exists expires_at, drop column if exists max_scans, drop column if exists expired_url, drop column if exists password_hash;');
  }
}
