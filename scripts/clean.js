#!/usr/bin/env node
'use strict';
/* `npm run clean [-- --yes]`: removes this clone's local data (scripts/lib/clean.js says what and where). */
const { log } = require('./lib/services');
const { cleanLocalData } = require('./lib/clean');

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--yes' && a !== '-y');
if (unknown.length) {
  log(`unknown argument ${unknown[0]}; usage: npm run clean [-- --yes]`);
  process.exit(64);
}
cleanLocalData({ yes: args.length > 0 }).then(
  (removed) => process.exit(removed ? 0 : 1),
  (err) => {
    log(`error: ${err.message}`);
    process.exit(1);
  },
);
