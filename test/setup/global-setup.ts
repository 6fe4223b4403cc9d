import { migrate } from '../../src/migrate';

/** E2e tests need the PostgreSQL and Redis that `npm test` (scripts/test.js) starts; this applies the migrations. */
export default async function globalSetup(): Promise<void> {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    throw new Error('E2e tests need DATABASE_URL and REDIS_URL: run them through `npm test`.');
  }
  await migrate(process.env.DATABASE_URL);
}
