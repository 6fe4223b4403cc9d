'use strict';
/* The local runner records where its PostgreSQL and Redis listen, so the CLI and `npm run migrate` find them. */
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./services');

function dataDir() {
  return path.resolve(ROOT, process.env.LOCAL_DATA_DIR || '.local');
}

function runtimeFile() {
  return path.join(dataDir(), 'runtime.json');
}

/** Fills DATABASE_URL / REDIS_URL from a running `npm run local` when they are not set. */
function applyLocalRuntime(env = process.env) {
  if (env.DATABASE_URL && env.REDIS_URL) return;
  try {
    const rt = JSON.parse(fs.readFileSync(runtimeFile(), 'utf8'));
    for (const k of ['DATABASE_URL', 'REDIS_URL', 'LOCAL_DATA_DIR']) if (!env[k] && rt[k]) env[k] = rt[k];
  } catch {
    /* no local runtime: loadConfig will say what is missing */
  }
}

module.exports = { dataDir, runtimeFile, applyLocalRuntime };
