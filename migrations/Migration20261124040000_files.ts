import { Migration } from '@mikro-orm/migrations';

/** Uploaded files (docs/files.md), and the link from the codes that show one. */
export class Migration20261124040000_files extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table files (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        environment text not null check (environment in ('live','test')),
        name text not null,
        content_type text not null,
        size bigint not null check (size > 0),
        sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index files_org_created_idx on files (organization_id, environment, created_at desc, id desc);');
    // Storage keeps one object per content hash: deleting a file asks whether another row holds the same bytes.
    this.addSql('create index files_sha256_idx on files (sha256);');
    // A file, audio or video code names its file in target.file_id. The column is derived from the target, so no
    // write path has to remember it, and the foreign key refuses to delete a file while any code row (live, trashed
    // or paused) uses it; "no action" is checked at the end of the statement, so deleting a workspace (which cascades
    // to both tables) still works.
    this.addSql(`alter table qr_codes add column file_id text generated always as (target->>'file_id') stored;`);
    this.addSql('alter table qr_codes add constraint qr_codes_file_id_fk foreign key (file_id) references files(id);');
    this.addSql('create index qr_codes_file_idx on qr_codes (file_id) where file_id is not null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table qr_codes drop column if exists file_id;');
    this.addSql('drop table if exists files;');
  }
}
