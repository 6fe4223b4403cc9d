#!/usr/bin/env node
'use strict';
/* `npm run -s mcp`: the MCP server over stdio, as the API key in SCANLINK_API_KEY (docs/mcp.md). Stdout carries only
 * the MCP protocol: installs, builds and logs go to stderr. Finds a running `npm run local`'s databases like the CLI. */
const { loadBuiltEntry } = require('./lib/runtime');

loadBuiltEntry('mcp', (err) => {
  process.stderr.write(`scanlink mcp: setup failed: ${err.message}\n`);
  process.exit(1);
}).main();
