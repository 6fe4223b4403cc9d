import { Migration } from '@mikro-orm/migrations';

/**
 * Pins on stored objects a writer is about to reference. A writer stores an image or a logo (content-addressed, maybe
 * shared) before the transaction that records a code using it; a pin, committed under the key's advisory lock before
 * the object is written, keeps any delete of that key waiting until the writer has referenced it or given up. A pin is
 * its writer's (token) and runs out at `until`, so a writer that died cannot keep an object forever.
 */
export class Migration20261125190000_storage_pins extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists storage_pins (
      key text not null,
      token text not null,
      until timestamptz not null,
      primary key (key, token)
    );`);
    this.addSql('create index if not exists storage_pins_token_idx on storage_pins (token);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists storage_pins;');
  }
}
