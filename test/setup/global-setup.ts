/** E2e tests need the PostgreSQL and Redis that `npm test` (scripts/test.js) starts and migrates. Nothing here loads
 * the entities: MikroORM metadata created in this process would leak into the test contexts. */
export default function globalSetup(): void {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    throw new Error('E2e tests need DATABASE_URL and REDIS_URL: run them through `npm test`.');
  }
}
