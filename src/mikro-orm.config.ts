import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { migrationsList } from '../migrations';
import { ENTITIES } from './entities';
import { AuditSubscriber } from './modules/audit/audit-subscriber';

/** One ORM configuration for the three processes, the CLI and the migration runner. Entities and migrations are
 * listed explicitly so the same code runs compiled (dist/) and under ts-jest. */
export function ormConfig(databaseUrl: string, opts: { debug?: boolean; poolMax?: number; statementTimeoutMs?: number } = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    // The audit log: every flushed change of an audited entity is recorded in the same transaction.
    subscribers: [new AuditSubscriber()],
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    extensions: [Migrator],
    migrations: { migrationsList, tableName: 'mikro_orm_migrations', transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    // Sent by node-postgres as a start-up parameter of each connection: PostgreSQL stops (and rolls back) any
    // statement running longer. Only the api process sets it (API_STATEMENT_TIMEOUT_MS).
    ...(opts.statementTimeoutMs ? { driverOptions: { connection: { statement_timeout: opts.statementTimeoutMs } } } : {}),
    debug: opts.debug ?? false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ignoreUndefinedInQuery: true,
  });
}
