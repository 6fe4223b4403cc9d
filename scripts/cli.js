#!/usr/bin/env node
'use strict';
/* `npm run -s cli -- <command> [flags]`: the operator CLI. Only JSON goes to stdout; builds and logs go to stderr. */
const { loadBuiltEntry } = require('./lib/runtime');

loadBuiltEntry('cli', (err) => {
  process.stdout.write(`${JSON.stringify({ error: { code: 'setup_failed', message: err.message } })}\n`);
  process.exit(1);
}).main();
