import { Migration } from '@mikro-orm/migrations';

/**
 * Image references counted through indexes, and storage deletes that are never dropped.
 * - qr_codes.image_key and logo_key get partial indexes: "does any code still use this key" is an index probe, not a
 *   scan of every code (it runs on every design change, creation failure and purge).
 * - storage_deletes queues the stored objects (SVG images, logos) no code refers to any more. A row is written in the
 *   transaction that found the key unused, under the key's advisory lock; the delete itself is attempted right away
 *   and, when storage fails, again later by the worker (due_at, attempts, last_error), re-checking under the same lock
 *   that no code took the key meanwhile.
 */
export class Migration20261125160000_storage_deletes extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index if not exists qr_codes_image_key_idx on qr_codes (image_key) where image_key is not null;');
    this.addSql('create index if not exists qr_codes_logo_key_idx on qr_codes (logo_key) where logo_key is not null;');
    this.addSql(`create table if not exists storage_deletes (
      key text primary key,
      due_at timestamptz not null default now(),
      attempts integer not null default 0,
      last_error text null,
      created_at timestamptz not null default now()
    );`);
    this.addSql('create index if not exists storage_deletes_due_idx on storage_deletes (due_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists storage_deletes;');
    this.addSql('drop index if exists qr_codes_logo_key_idx;');
    this.addSql('drop index if exists qr_codes_image_key_idx;');
  }
}
