#!/usr/bin/env node
'use strict';
/* `npm run local`: everything a new user needs on one machine. Installs what is missing, starts PostgreSQL and Redis
 * (unless DATABASE_URL / REDIS_URL point elsewhere), migrates, starts api + scan + worker, and prints the URLs and a
 * demo API key. Ctrl-C or SIGTERM stops every child. `--reset` first removes this clone's data (scripts/lib/clean.js). */
const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const svc = require('./lib/services');
const { dataDir, runtimeFile, localSecrets, applySecrets } = require('./lib/runtime');

const LOCAL_WEBHOOK_HOSTS = 'localhost,127.0.0.1,::1';
const stoppers = [];
const children = [];
let shuttingDown = false;

async function shutdown(code) {
  if (shuttingDown) return;
  shuttingDown = true;
  svc.log('stopping…');
  await Promise.all(
    children.map(
      (c) =>
        new Promise((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const t = setTimeout(() => c.kill('SIGKILL'), 10000);
          c.once('exit', () => {
            clearTimeout(t);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
  for (const stop of stoppers.reverse()) await stop().catch((e) => svc.log(`stop failed: ${e.message}`));
  try {
    fs.rmSync(runtimeFile(), { force: true });
  } catch {
    /* ignore */
  }
  svc.log('stopped');
  process.exit(code);
}

function prefixLines(stream, name, out) {
  let buf = '';
  stream.on('data', (chunk) => {
    buf += chunk;
    const lines = buf.split('\n');
    buf = lines.pop();
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
}

function startProcess(name, env) {
  const child = spawn(process.execPath, [path.join(svc.ROOT, 'dist', 'src', `main.${name}.js`)], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prefixLines(child.stdout, name, process.stdout);
  prefixLines(child.stderr, name, process.stderr);
  child.once('exit', (code, signal) => {
    if (shuttingDown) return;
    svc.log(`${name} exited (${signal ?? code}); stopping everything`);
    void shutdown(1);
  });
  children.push(child);
  return child;
}

function cli(env, args) {
  const r = spawnSync(process.execPath, [path.join(svc.ROOT, 'dist', 'src', 'cli.js'), ...args], { env, encoding: 'utf8' });
  let out;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new Error(`cli ${args[0]} failed: ${r.stdout}${r.stderr}`);
  }
  if (r.status !== 0) throw new Error(`cli ${args[0]} failed: ${JSON.stringify(out)}`);
  return out;
}

/** Every port the runner needs, checked before anything starts: a busy one names the variable that moves it. */
async function checkPorts(env) {
  const wanted = [['PORT', env.PORT || 3000], ['SCAN_PORT', env.SCAN_PORT || 3001], ['WORKER_PORT', env.WORKER_PORT || 3002]];
  if (!env.DATABASE_URL) wanted.push(['LOCAL_PG_PORT', env.LOCAL_PG_PORT || 54320]);
  if (!env.REDIS_URL) wanted.push(['LOCAL_REDIS_PORT', env.LOCAL_REDIS_PORT || 63790]);
  for (const [variable, port] of wanted) {
    if (await svc.portOpen(Number(port))) throw new Error(`port ${port} is already in use (is Scanlink already running?); set ${variable} to a free port`);
  }
}

/** Applies pending migrations and says so in one line (the migrator's own output only on failure). */
function migrate(env) {
  const r = spawnSync(process.execPath, [path.join(svc.ROOT, 'dist', 'src', 'migrate.js')], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`migrations failed:\n${r.stderr}${r.stdout}`);
  const { applied } = JSON.parse(r.stdout);
  svc.log(applied.length ? `migrations: applied ${applied.join(', ')}` : 'migrations: database up to date');
}

/** The demo workspace is created once; its key is kept in the data directory and reused on later runs. */
async function demoKey(env) {
  const file = path.join(dataDir(), 'demo.json');
  try {
    const demo = JSON.parse(fs.readFileSync(file, 'utf8'));
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    const hash = require('node:crypto').createHash('sha256').update(demo.api_key).digest('hex');
    const r = await client.query('select 1 from api_keys where key_hash = $1 and revoked_at is null', [hash]);
    await client.end();
    if (r.rowCount === 1) return demo;
  } catch {
    /* no demo yet, or its database was reset */
  }
  const demo = cli(env, ['org:create', '--name', 'Demo workspace', '--plan', 'pro', '--email', 'demo@scanlink.local']);
  fs.writeFileSync(file, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}

async function main() {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  svc.ensureDependencies();
  svc.ensureBuilt();
  const dir = dataDir();
  fs.mkdirSync(dir, { recursive: true });
  const env = applySecrets({ ...process.env, LOCAL_DATA_DIR: dir, NODE_ENV: process.env.NODE_ENV || 'development' }, localSecrets({ create: true }));
  // Webhook receivers on this machine (a plain-http server on localhost) for trying webhooks; production refuses them.
  env.WEBHOOK_ALLOW_HOSTS ??= LOCAL_WEBHOOK_HOSTS;
  // Logs: pretty for a person's terminal, JSON when the output goes to a file or a collector (LOG_FORMAT overrides).
  env.LOG_FORMAT ??= process.stdout.isTTY ? 'pretty' : 'json';
  await checkPorts(env);
  let pgData;
  if (!env.DATABASE_URL) {
    const port = Number(process.env.LOCAL_PG_PORT || 54320);
    // Where the data really is comes after the start: as root it may be kept outside the data directory (postgres.js
    // says why), so this line names no directory.
    svc.log(`starting PostgreSQL on 127.0.0.1:${port}…`);
    const pg = await svc.startPostgres({ port, dir: path.join(dir, 'pg'), fresh: false, fast: false });
    stoppers.push(pg.stop);
    env.DATABASE_URL = pg.url;
    pgData = pg.dataDir;
  }
  if (!env.REDIS_URL) {
    const port = Number(process.env.LOCAL_REDIS_PORT || 63790);
    svc.log(`starting Redis on 127.0.0.1:${port}…`);
    const redis = await svc.startRedis({ port, dir: path.join(dir, 'redis'), persistent: true });
    stoppers.push(redis.stop);
    env.REDIS_URL = redis.url;
  }
  fs.writeFileSync(runtimeFile(), JSON.stringify({ DATABASE_URL: env.DATABASE_URL, REDIS_URL: env.REDIS_URL, LOCAL_DATA_DIR: dir }, null, 2));
  migrate(env);
  const demo = await demoKey(env);

  const port = Number(env.PORT || 3000);
  const scanPort = Number(env.SCAN_PORT || 3001);
  startProcess('api', env);
  startProcess('scan', env);
  startProcess('worker', env);
  await svc.waitFor(async () => (await svc.portOpen(port)) && (await svc.portOpen(scanPort)), 'api and scan processes', 60000);

  const apiBase = (env.API_BASE_URL || `http://localhost:${port}/v1`).replace(/\/+$/, '');
  const scanBase = (env.SCAN_BASE_URL || `http://localhost:${scanPort}`).replace(/\/+$/, '');
  const apiOrigin = new URL(apiBase).origin;
  // A one-time sign-in link (15 minutes) for the demo owner: POST its token to /v1/session/link/verify.
  let signIn = '(could not be created)';
  try {
    signIn = cli(env, ['sign-in-link', '--email', 'demo@scanlink.local']).url;
  } catch (err) {
    svc.log(`sign-in link: ${err.message}`);
  }
  process.stdout.write(
    [
      '',
      'Scanlink is running.',
      `  Dashboard:     ${apiOrigin}/app/   (open the demo sign-in link below; docs/dashboard.md)`,
      `  API:           ${apiBase}`,
      `  API docs:      ${apiOrigin}/docs  (OpenAPI: ${apiOrigin}/docs/openapi.json)`,
      `  MCP server:    ${apiOrigin}/mcp  (Streamable HTTP; stdio: SCANLINK_API_KEY=… npm run -s mcp; docs/mcp.md)`,
      `  Scan host:     ${scanBase}`,
      `  Worker:        http://localhost:${Number(env.WORKER_PORT || 3002)}/health/ready  (health and metrics only)`,
      `  Images:        ${(env.IMAGE_BASE_URL || `${scanBase}/images`).replace(/\/+$/, '')}`,
      `  Demo API key:  ${demo.api_key}   (workspace ${demo.organization_id}, plan pro)`,
      `  Demo sign-in:  ${signIn}   (owner demo@scanlink.local; one use, 15 minutes; docs/members.md)`,
      `  Webhooks:      receivers on ${env.WEBHOOK_ALLOW_HOSTS} allowed over plain http (WEBHOOK_ALLOW_HOSTS; development only)`,
      `  Data:          ${dir}${pgData && !pgData.startsWith(dir + path.sep) ? ` (PostgreSQL's in ${pgData})` : ''}; npm run clean removes it`,
      '',
      `  Try: curl -w '\\n' -H "Authorization: Bearer ${demo.api_key}" ${apiBase}/me`,
      '  Press Ctrl-C to stop.',
      '',
    ].join('\n') + '\n',
  );
}

/**
 * A terminal's Ctrl-C signals its whole foreground process group: PostgreSQL and Redis would stop at the same moment
 * as api/scan/worker, which still need them to finish their work. So this process only starts a supervisor in a
 * process group of its own (same script, SCANLINK_LOCAL_SUPERVISOR=1) and passes it any SIGINT/SIGTERM/SIGHUP; the
 * supervisor stops api, scan and worker first, then Redis, then PostgreSQL.
 */
function superviseDetached(args) {
  const child = spawn(process.execPath, [__filename, ...args], {
    detached: true,
    stdio: 'inherit',
    env: { ...process.env, SCANLINK_LOCAL_SUPERVISOR: '1' },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    });
  }
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.env.SCANLINK_LOCAL_SUPERVISOR === '1') {
  main().catch((err) => {
    svc.log(`error: ${err.message}`);
    void shutdown(1);
  });
} else {
  // `--reset` (`--yes` to skip the question): remove this clone's data first, asking here, in the terminal's process
  // group (the supervisor's own group may not read the terminal), then start afresh.
  const args = process.argv.slice(2);
  const reset = args.includes('--reset');
  const rest = args.filter((a) => !['--reset', '--yes', '-y'].includes(a));
  const start = () => superviseDetached(rest);
  if (!reset) start();
  else
    require('./lib/clean')
      .cleanLocalData({ yes: args.includes('--yes') || args.includes('-y') })
      .then(
        (removed) => (removed ? start() : process.exit(1)),
        (err) => {
          svc.log(`error: ${err.message}`);
          process.exit(1);
        },
      );
}
