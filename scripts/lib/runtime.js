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

function secretsFile() {
  return path.join(dataDir(), 'secrets.json');
}

/** Random secrets for processes that run without configured ones (`npm test`, benchmarks). */
function randomSecrets() {
  const random = () => require('node:crypto').randomBytes(32).toString('base64url');
  return { APP_SECRET: random(), DASHBOARD_JWT_SECRET: random() };
}

/** `npm run local`'s APP_SECRET and DASHBOARD_JWT_SECRET: generated at random on the first run and kept (mode 0600)
 * in the data directory, so tokens and sealed secrets survive restarts and the CLI signs what the api verifies. */
function localSecrets({ create = false } = {}) {
  try {
    return JSON.parse(fs.readFileSync(secretsFile(), 'utf8'));
  } catch {
    if (!create) return {};
  }
  const secrets = randomSecrets();
  fs.mkdirSync(dataDir(), { recursive: true });
  fs.writeFileSync(secretsFile(), JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/** Fills secrets a process was not given from the local data directory (values already set win). */
function applySecrets(env, secrets) {
  if (!env.APP_SECRET && secrets.APP_SECRET) env.APP_SECRET = secrets.APP_SECRET;
  if (!env.DASHBOARD_JWT_SECRET && !env.DASHBOARD_JWKS_URL && secrets.DASHBOARD_JWT_SECRET) env.DASHBOARD_JWT_SECRET = secrets.DASHBOARD_JWT_SECRET;
  return env;
}

/** Fills DATABASE_URL / REDIS_URL from a running `npm run local` when they are not set, and the secrets it keeps. */
function applyLocalRuntime(env = process.env) {
  applySecrets(env, localSecrets());
  if (env.DATABASE_URL && env.REDIS_URL) return;
  try {
    const rt = JSON.parse(fs.readFileSync(runtimeFile(), 'utf8'));
    for (const k of ['DATABASE_URL', 'REDIS_URL', 'LOCAL_DATA_DIR']) if (!env[k] && rt[k]) env[k] = rt[k];
  } catch {
    /* no local runtime: loadConfig will say what is missing */
  }
}

/** The start of `npm run cli` and `npm run mcp`: installs what is missing and builds when a source changed (output on
 * stderr), fills in a running `npm run local`'s databases and secrets, then loads `dist/src/<name>.js`. */
function loadBuiltEntry(name, onSetupError) {
  const { ensureDependencies, ensureBuilt } = require('./services');
  try {
    ensureDependencies();
    ensureBuilt();
  } catch (err) {
    onSetupError(err);
  }
  applyLocalRuntime();
  return require(path.join(ROOT, 'dist', 'src', `${name}.js`));
}

module.exports = { dataDir, runtimeFile, applyLocalRuntime, localSecrets, randomSecrets, applySecrets, loadBuiltEntry };
