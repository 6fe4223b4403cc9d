#!/usr/bin/env node
'use strict';
/* `npm run migrate`: applies pending migrations to DATABASE_URL (or the running local PostgreSQL). */
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT, ensureDependencies, ensureBuilt } = require('./lib/services');
const { applyLocalRuntime } = require('./lib/runtime');

ensureDependencies();
ensureBuilt();
applyLocalRuntime();
if (!process.env.DATABASE_URL) {
  process.stderr.write('DATABASE_URL is not set and no local PostgreSQL is running (start `npm run local` first).\n');
  process.exit(78);
}
const r = spawnSync(process.execPath, [path.join(ROOT, 'dist', 'src', 'migrate.js')], { stdio: 'inherit', env: process.env });
process.exit(r.status ?? 1);
