import { Migration } from '@mikro-orm/migrations';

/** Folders belong to one environment (test or live), like codes and batches: a key sees only its own. Existing
 * folders are live. */
export class Migration20261123200000_folder_environment extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table folders add column environment text not null default 'live' check (environment in ('live','test'));`);
    this.addSql('drop index if exists folders_org_created_idx;');
    this.addSql('create index folders_org_env_created_idx on folders (organization_id, environment, created_at desc, id desc);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists folders_org_env_created_idx;');
    this.addSql('create index folders_org_created_idx on folders (organization_id, created_at desc, id desc);');
    this.addSql('alter table folders drop column environment;');
  }
}
