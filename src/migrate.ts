import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from './mikro-orm.config';

/** Applies pending migrations. Used by `npm run migrate`, the local runner and the test runner. */
export async function migrate(databaseUrl: string, log: (msg: string) => void = () => undefined): Promise<string[]> {
  const config = ormConfig(databaseUrl, { poolMax: 2 });
  // The migrator's own per-migration lines are silenced: each applied migration is reported once, by `log`.
  const orm = await MikroORM.init({ ...config, migrations: { ...config.migrations, silent: true } });
  try {
    const applied = await orm.getMigrator().up();
    for (const m of applied) log(`applied ${m.name}`);
    return applied.map((m) => m.name);
  } finally {
    await orm.close();
  }
}

if (require.main === module) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write('DATABASE_URL is required\n');
    process.exit(78);
  }
  migrate(url, (m) => process.stderr.write(`${m}\n`)).then(
    (applied) => {
      process.stdout.write(`${JSON.stringify({ applied })}\n`);
      process.exit(0);
    },
    (err: Error) => {
      process.stderr.write(`migration failed: ${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
