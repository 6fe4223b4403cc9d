import { defineConfig } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { migrationsList } from '../migrations';
import { ENTITIES } from './entities';

/** One ORM configuration for the three processes, the CLI and the migration runner. Entities and migrations are
 * listed explicitly so the same code runs compiled (dist/) and under ts-jest. */
export function ormConfig(databaseUrl: string, opts: { debug?: boolean; poolMax?: number } = {}) {
  return defineConfig({
    clientUrl: databaseUrl,
    entities: ENTITIES,
    discovery: { disableDynamicFileAccess: true, requireEntitiesArray: true },
    extensions: [Migrator],
    migrations: { migrationsList, tableName: 'mikro_orm_migrations', transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    debug: opts.debug ?? false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ignoreUndefinedInQuery: true,
  });
}
