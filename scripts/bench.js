#!/usr/bin/env node
'use strict';
/* `npm run bench:<name>`: starts its own PostgreSQL and Redis (like npm test), migrates, and runs bench/<name>.ts,
 * which prints figures. Benchmarks only talk to loopback and stop by themselves. */
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const svc = require('./lib/services');
const { applySecrets, randomSecrets } = require('./lib/runtime');

async function main() {
  const name = process.argv[2];
  const file = path.join(svc.ROOT, 'bench', `${name}.ts`);
  if (!name || !fs.existsSync(file)) {
    svc.log(`usage: node scripts/bench.js <name>  (bench/<name>.ts)`);
    process.exit(64);
  }
  svc.ensureDependencies();
  const dir = path.resolve(svc.ROOT, process.env.LOCAL_DATA_DIR || '.local', `bench-${process.pid}`);
  const stoppers = [];
  const env = applySecrets({ ...process.env, NODE_ENV: 'test', LOCAL_DATA_DIR: dir, LOG_LEVEL: process.env.LOG_LEVEL || 'silent' }, randomSecrets());
  let code = 1;
  let running;
  svc.onStopSignal({ stoppers, dir, forward: () => running });
  try {
    // BENCH_PG_DIR=<dir>: a PostgreSQL cluster kept in that directory between runs (created on the first), so a bench
    // that seeds a large database (bench:analytics) seeds it once and measures it again on later runs (it sees its
    // seed and skips seeding). Delete the directory to drop it.
    const keepDir = process.env.BENCH_PG_DIR ? path.resolve(process.env.BENCH_PG_DIR) : null;
    if (!process.env.DATABASE_URL) {
      const pg = await svc.startPostgres({ port: await svc.freePort(), dir: keepDir ?? path.join(dir, 'pg'), fresh: keepDir === null, fast: true });
      stoppers.push(pg.stop);
      env.DATABASE_URL = pg.url;
    }
    if (!process.env.REDIS_URL) {
      const redis = await svc.startRedis({ port: await svc.freePort(), dir: path.join(dir, 'redis'), persistent: false });
      stoppers.push(redis.stop);
      env.REDIS_URL = redis.url;
    }
    const tsNode = path.join(svc.ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');
    const run = (args) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [tsNode, '--transpile-only', '-P', path.join(svc.ROOT, 'tsconfig.json'), ...args], {
          cwd: svc.ROOT,
          env,
          stdio: 'inherit',
        });
        running = child;
        child.once('exit', (c) => resolve(c ?? 1));
      });
    code = await run([path.join(svc.ROOT, 'src', 'migrate.ts')]);
    if (code === 0) code = await run([file, ...process.argv.slice(3)]);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.exit(code);
}

main().catch((err) => {
  svc.log(`error: ${err.stack || err.message}`);
  process.exit(1);
});
