#!/usr/bin/env node
'use strict';
/* `npm run -s mcp`: the MCP server over stdio, as the API key in SCANLINK_API_KEY. Stdout carries only the MCP
 * protocol: installs, builds and logs go to stderr. Finds the databases of a running `npm run local` like the CLI. */
const path = require('node:path');
const { ROOT, ensureDependencies, ensureBuilt } = require('./lib/services');
const { applyLocalRuntime } = require('./lib/runtime');

try {
  ensureDependencies();
  ensureBuilt();
} catch (err) {
  process.stderr.write(`scanlink mcp: setup failed: ${err.message}\n`);
  process.exit(1);
}
applyLocalRuntime();
require(path.join(ROOT, 'dist', 'src', 'mcp.js')).main();
