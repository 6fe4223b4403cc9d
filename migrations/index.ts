import { Migration20261122000000_foundation } from './Migration20261122000000_foundation';

/** Applied in this order by `npm run migrate`, the local runner and the test runner. */
export const migrationsList = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
];
