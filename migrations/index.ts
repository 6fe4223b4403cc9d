import { Migration20261122000000_foundation } from './Migration20261122000000_foundation';
import { Migration20261122001000_qr_codes } from './Migration20261122001000_qr_codes';
import { Migration20261122003000_webhooks } from './Migration20261122003000_webhooks';
import { Migration20261122005000_batches } from './Migration20261122005000_batches';
import { Migration20261123000000_scans } from './Migration20261123000000_scans';
import { Migration20261123100000_scan_totals } from './Migration20261123100000_scan_totals';
import { Migration20261123200000_folder_environment } from './Migration20261123200000_folder_environment';
import { Migration20261123210000_domains } from './Migration20261123210000_domains';
import { Migration20261123220000_webhook_environment } from './Migration20261123220000_webhook_environment';
import { Migration20261124010000_gs1_retirement } from './Migration20261124010000_gs1_retirement';
import { Migration20261124020000_code_domain_hostname } from './Migration20261124020000_code_domain_hostname';
import { Migration20261124040000_files } from './Migration20261124040000_files';
import { Migration20261124060000_scans_org_fk } from './Migration20261124060000_scans_org_fk';
import { Migration20261124030000_templates } from './Migration20261124030000_templates';
import { Migration20261124031000_batch_claims } from './Migration20261124031000_batch_claims';
import { Migration20261125010000_scan_ingest_speed } from './Migration20261125010000_scan_ingest_speed';
import { Migration20261125120000_link_controls } from './Migration20261125120000_link_controls';
import { Migration20261125150000_analytics_second_edition } from './Migration20261125150000_analytics_second_edition';
import { Migration20261125160000_storage_deletes } from './Migration20261125160000_storage_deletes';
import { Migration20261125170000_gs1_reservations } from './Migration20261125170000_gs1_reservations';

/** Applied in this order by `npm run migrate`, the local runner and the test runner. */
export const migrationsList = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122001000_qr_codes', class: Migration20261122001000_qr_codes },
  { name: 'Migration20261122003000_webhooks', class: Migration20261122003000_webhooks },
  { name: 'Migration20261122005000_batches', class: Migration20261122005000_batches },
  { name: 'Migration20261123000000_scans', class: Migration20261123000000_scans },
  { name: 'Migration20261123100000_scan_totals', class: Migration20261123100000_scan_totals },
  { name: 'Migration20261123200000_folder_environment', class: Migration20261123200000_folder_environment },
  { name: 'Migration20261123210000_domains', class: Migration20261123210000_domains },
  { name: 'Migration20261123220000_webhook_environment', class: Migration20261123220000_webhook_environment },
  { name: 'Migration20261124010000_gs1_retirement', class: Migration20261124010000_gs1_retirement },
  { name: 'Migration20261124020000_code_domain_hostname', class: Migration20261124020000_code_domain_hostname },
  { name: 'Migration20261124040000_files', class: Migration20261124040000_files },
  { name: 'Migration20261124060000_scans_org_fk', class: Migration20261124060000_scans_org_fk },
  { name: 'Migration20261124030000_templates', class: Migration20261124030000_templates },
  { name: 'Migration20261124031000_batch_claims', class: Migration20261124031000_batch_claims },
  { name: 'Migration20261125010000_scan_ingest_speed', class: Migration20261125010000_scan_ingest_speed },
  { name: 'Migration20261125120000_link_controls', class: Migration20261125120000_link_controls },
  { name: 'Migration20261125150000_analytics_second_edition', class: Migration20261125150000_analytics_second_edition },
  { name: 'Migration20261125160000_storage_deletes', class: Migration20261125160000_storage_deletes },
  { name: 'Migration20261125170000_gs1_reservations', class: Migration20261125170000_gs1_reservations },
];
