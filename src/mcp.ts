import 'reflect-metadata';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { INestApplication } from '@nestjs/common';
import { isWellFormedApiKey } from './common/auth/api-key-format';
import { AppConfig, loadConfig } from './common/config/config';
import { ApiException } from './common/errors/api.exception';
import { isDependencyDown } from './common/errors/exception.filter';

/**
 * `npm run -s mcp`: the MCP server over stdio for a local client (docs/mcp.md). It boots the api app without opening a
 * port, so tools run exactly as over HTTP, as the key in SCANLINK_API_KEY. Stdout carries only the protocol; logs go
 * to stderr. Exit codes: 78 configuration missing or invalid (no key, no database settings), 77 the key is refused,
 * 69 PostgreSQL or Redis unreachable, 0 when the client closes the connection.
 */

export const EXIT = { config: 78, unauthorized: 77, unavailable: 69 } as const;

function fail(message: string, code: number): never {
  process.stderr.write(`scanlink mcp: ${message}\n`);
  process.exit(code);
}

const NO_DATABASE =
  'no database to work on: start `npm run local` in another terminal (the MCP server then finds its PostgreSQL and Redis), ' +
  'or set DATABASE_URL and REDIS_URL.';

export async function main(): Promise<void> {
  const key = process.env.SCANLINK_API_KEY?.trim();
  if (!key) fail('SCANLINK_API_KEY is not set: put an API key (qr_live_… or qr_test_…) in it, e.g. in your MCP client\'s "env" settings.', EXIT.config);
  if (!isWellFormedApiKey(key)) fail('SCANLINK_API_KEY was refused: Malformed API key: expected qr_live_… or qr_test_… followed by 32 characters', EXIT.unauthorized);
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) fail(NO_DATABASE, EXIT.config);
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    fail((err as Error).message, EXIT.config);
  }
  let app: INestApplication | undefined;
  try {
    // Loaded here, so a missing or malformed key is reported at once, before the app's modules load.
    const [{ createApiApp }, { McpService }] = await Promise.all([import('./app/bootstrap'), import('./modules/mcp/mcp.service')]);
    app = await createApiApp(config, { logDestination: 2 });
    const mcp = app.get(McpService);
    await mcp.authenticate(key);
    const server = mcp.createServer(() => mcp.authenticate(key));
    let closing = false;
    const close = () => {
      if (closing) return;
      closing = true;
      const force = setTimeout(() => process.exit(0), 5_000);
      force.unref();
      void server
        .close()
        .catch(() => undefined)
        .then(() => app?.close())
        .finally(() => process.exit(0));
    };
    process.stdin.once('end', close);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, close);
    await server.connect(new StdioServerTransport());
    process.stderr.write(`scanlink mcp: ready on stdio (${key.slice(0, 12)}…)\n`);
  } catch (err) {
    await app?.close().catch(() => undefined);
    if (err instanceof ApiException && err.code === 'unauthorized') fail(`SCANLINK_API_KEY was refused: ${err.message}`, EXIT.unauthorized);
    if (isDependencyDown(err)) fail(`PostgreSQL or Redis is unreachable: ${(err as Error).message}`, EXIT.unavailable);
    fail(`failed to start: ${(err as Error).stack ?? String(err)}`, 1);
  }
}

if (require.main === module) void main();
