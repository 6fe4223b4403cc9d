import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from './common/config/config';
import { ApiModule } from './app/api.module';
import { buildOpenApi, UNPREFIXED_PATHS } from './app/openapi';

/** Writes the API's OpenAPI document (as served at /docs/openapi.json) to the file named by the first argument, or
 * stdout, without connecting to PostgreSQL or Redis: Nest's preview mode builds the routes but no providers. */
async function main(): Promise<void> {
  // Nothing is signed or verified here, but the config refuses to load without secrets: throwaway random ones.
  const throwaway = randomBytes(32).toString('hex');
  const config = loadConfig({
    DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused',
    REDIS_URL: 'redis://127.0.0.1:1',
    APP_SECRET: throwaway,
    DASHBOARD_JWT_SECRET: throwaway,
    ...process.env,
    NODE_ENV: 'development',
  });
  const app = await NestFactory.create<NestFastifyApplication>(ApiModule.forRoot(config), new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
  app.setGlobalPrefix('v1', { exclude: UNPREFIXED_PATHS });
  const json = `${JSON.stringify(buildOpenApi(app, config), null, 2)}\n`;
  const out = process.argv[2];
  if (out) writeFileSync(out, json);
  else process.stdout.write(json);
  await app.close();
}

main().catch((err: Error) => {
  process.stderr.write(`openapi: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
