#!/usr/bin/env node
'use strict';
/* `npm test`: installs what is missing, starts its own PostgreSQL and Redis on free ports in a fresh directory (so it
 * runs beside `npm run local`), and runs every unit and e2e test (the e2e global setup migrates). Extra arguments go to Jest.
 * `--unit` runs the unit tests alone, without services. */
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const svc = require('./lib/services');
const { applySecrets, randomSecrets } = require('./lib/runtime');

async function main() {
  const args = process.argv.slice(2);
  const unitOnly = args.includes('--unit');
  const jestArgs = args.filter((a) => a !== '--unit');
  svc.ensureDependencies();
  // The PDF tests (unit) rasterize with poppler's pdftoppm, from Debian like Redis and Chromium.
  const pdftoppm = process.env.PDFTOPPM_PATH || svc.ensurePdftoppm();
  const dir = path.resolve(svc.ROOT, process.env.LOCAL_DATA_DIR || '.local', `test-${process.pid}`);
  const stoppers = [];
  // Secrets of this run only (the processes refuse to start without them; no built-in default exists). The AWS SDK
  // warns once per process that its 2027 releases need Node 22; the project runs on Node 20 by design.
  const env = applySecrets({ ...process.env, NODE_ENV: 'test', LOCAL_DATA_DIR: dir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', PDFTOPPM_PATH: pdftoppm }, randomSecrets());
  let code = 1;
  let jestChild;
  svc.onStopSignal({ stoppers, dir, forward: () => jestChild });
  try {
    if (!unitOnly) {
      env.CHROMIUM_PATH = process.env.CHROMIUM_PATH || svc.ensureChromium();
      // The browser tests (test/browser) drive the dashboard the api serves from dist/web: built once here, not per file.
      svc.ensureWebBuilt();
      if (!process.env.DATABASE_URL) {
        const pg = await svc.startPostgres({ port: await svc.freePort(), dir: path.join(dir, 'pg'), fresh: true, fast: true });
        stoppers.push(pg.stop);
        env.DATABASE_URL = pg.url;
      }
      if (!process.env.REDIS_URL) {
        const redis = await svc.startRedis({ port: await svc.freePort(), dir: path.join(dir, 'redis'), persistent: false });
        stoppers.push(redis.stop);
        env.REDIS_URL = redis.url;
      }
      // Migrations run in their own process: loading the entities inside Jest's parent process (globalSetup) leaks
      // MikroORM metadata into the test contexts.
      // Each applied migration is named once (its stderr line); the JSON summary on stdout is for scripts, not people.
      svc.run(process.execPath, [path.join(svc.ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', path.join(svc.ROOT, 'tsconfig.json'), path.join(svc.ROOT, 'src', 'migrate.ts')], {
        env,
        stdio: ['ignore', 'ignore', 2],
      });
    }
    fs.mkdirSync(dir, { recursive: true });
    const jest = path.join(svc.ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
    const select = unitOnly ? ['--selectProjects', 'unit'] : [];
    // Jest's own report, then one summary line (test/setup/summary-reporter.js): no results file that this script would
    // delete right after Jest named it. --selectProjects and --reporters come after the caller's arguments: each takes
    // every value after it (test paths included).
    const reporters = ['--reporters=default', `--reporters=${path.join(svc.ROOT, 'test', 'setup', 'summary-reporter.js')}`];
    code = await new Promise((resolve) => {
      const child = spawn(process.execPath, [jest, '--ci', '--maxWorkers=2', ...jestArgs, ...select, ...reporters], {
        cwd: svc.ROOT,
        env,
        stdio: 'inherit',
      });
      jestChild = child;
      child.once('exit', (c) => resolve(c ?? 1));
    });
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
