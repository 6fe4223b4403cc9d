#!/usr/bin/env node
'use strict';
/* `npm run -s cli -- <command> [flags]`: the operator CLI. Only JSON goes to stdout; builds and logs go to stderr. */
const path = require('node:path');
const { ROOT, ensureDependencies, ensureBuilt } = require('./lib/services');
const { applyLocalRuntime } = require('./lib/runtime');

try {
  ensureDependencies();
  ensureBuilt();
} catch (err) {
  process.stdout.write(`${JSON.stringify({ error: { code: 'setup_failed', message: err.message } })}\n`);
  process.exit(1);
}
applyLocalRuntime();
require(path.join(ROOT, 'dist', 'src', 'cli.js')).main();
