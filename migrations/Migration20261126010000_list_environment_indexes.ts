import { Migration } from '@mikro-orm/migrations';

/**
 * GET /v1/qr-codes lists one workspace's codes of one environment (a key sees its own: live or test). The keyset
 * indexes, one per sort, now carry the environment after the status, so the environment is part of the index range
 * rather than a filter on it: a live key's page stays a read of 26 index entries however many test codes the
 * workspace has (and the other way round). They replace the indexes without it; (organization_id, status) stays their
 * prefix for the counts that use it.
 */
const SORTS: Array<[string, string]> = [
  ['created', 'created_at'],
  ['updated', 'updated_at'],
  ['name', 'name'],
  ['scans', 'scan_count'],
  ['deleted', 'deleted_at'],
];

export class Migration20261126010000_list_environment_indexes extends Migration {
  override async up(): Promise<void> {
    for (const [name, column] of SORTS) {
      this.addSql(`create index if not exists qr_codes_org_env_${name}_idx on qr_codes (organization_id, status, environment, ${column}, id);`);
      this.addSql(`drop index if exists qr_codes_org_${name}_idx;`);
    }
  }

  override async down(): Promise<void> {
    for (const [name, column] of SORTS) {
      this.addSql(`create index if not exists qr_codes_org_${name}_idx on qr_codes (organization_id, status, ${column}, id);`);
      this.addSql(`drop index if exists qr_codes_org_env_${name}_idx;`);
    }
  }
}
