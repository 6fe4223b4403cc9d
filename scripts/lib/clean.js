'use strict';
/* `npm run clean` and `npm run local -- --reset`: removes this clone's local data wherever it lives. That is the data
 * directory (`.local/`, or LOCAL_DATA_DIR): PostgreSQL, Redis, stored images and files, the demo key, the local secrets,
 * and what interrupted test or bench runs left there; and, when PostgreSQL had to keep its data outside it (running as
 * root with the clone in a private directory, see postgres.js), /var/tmp/scanlink-<hash>/ for each of those.
 * Asks first on a terminal; elsewhere it needs --yes. Refuses while `npm run local` runs on this data. */
const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline/promises');
const { ROOT, log, portOpen } = require('./services');
const { relocatedHome } = require('./postgres');
const { dataDir, runtimeFile } = require('./runtime');

/** Entries of a data directory that Scanlink writes; anything else in it (LOCAL_DATA_DIR may be a shared directory) is
 * left alone. */
const OWN_ENTRY = /^(pg|redis|storage|secrets\.json|demo\.json|runtime\.json|openapi\.json|(test|bench)-\d+)$/;

function sizeOf(p) {
  let st;
  try {
    st = fs.lstatSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of fs.readdirSync(p)) total += sizeOf(path.join(p, name));
  return total;
}

function human(bytes) {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** Everything to remove: [path, bytes], existing paths only. */
function targets(dir) {
  const found = [];
  const owned = fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => OWN_ENTRY.test(n)) : [];
  for (const name of owned) found.push(path.join(dir, name));
  // PostgreSQL clusters of this data directory and of interrupted test/bench runs, when kept under /var/tmp.
  const clusters = [path.join(dir, 'pg'), ...owned.filter((n) => /^(test|bench)-/.test(n)).map((n) => path.join(dir, n, 'pg'))];
  for (const cluster of clusters) {
    const home = relocatedHome(cluster);
    if (fs.existsSync(home)) found.push(home);
  }
  return found.map((p) => [p, sizeOf(p)]);
}

/** True when a running `npm run local` uses this data directory (its runtime file names servers that answer). */
async function runningOn(dir) {
  let rt;
  try {
    rt = JSON.parse(fs.readFileSync(runtimeFile(), 'utf8'));
  } catch {
    return false;
  }
  if (rt.LOCAL_DATA_DIR && path.resolve(rt.LOCAL_DATA_DIR) !== dir) return false;
  for (const url of [rt.DATABASE_URL, rt.REDIS_URL]) {
    try {
      const u = new URL(url);
      if ((u.hostname === '127.0.0.1' || u.hostname === 'localhost') && (await portOpen(Number(u.port)))) return true;
    } catch {
      /* not a URL */
    }
  }
  return false;
}

/**
 * Removes the local data after saying what it is. `yes` skips the question. Resolves true when the data is gone (or
 * there was none), false when the user said no. Throws when the question cannot be asked or the data is in use.
 */
async function cleanLocalData({ yes = false } = {}) {
  const dir = dataDir();
  if (await runningOn(dir)) throw new Error(`npm run local is running on ${dir}: stop it first (Ctrl-C in its terminal)`);
  const found = targets(dir);
  if (found.length === 0) {
    log(`no local data to remove (${dir})`);
    return true;
  }
  const total = found.reduce((sum, [, bytes]) => sum + bytes, 0);
  log(`local data of ${ROOT} (${human(total)}): PostgreSQL and Redis data, stored files, the demo workspace and its key, local secrets`);
  for (const [p, bytes] of found) log(`  ${p}  (${human(bytes)})`);
  if (!yes) {
    if (!process.stdin.isTTY || !process.stderr.isTTY) throw new Error('not on a terminal: add --yes to remove the local data without asking');
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question('[scanlink] remove all of it? This cannot be undone. [y/N] ');
    rl.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      log('kept');
      return false;
    }
  }
  for (const [p] of found) fs.rmSync(p, { recursive: true, force: true });
  try {
    fs.rmdirSync(dir); // only when nothing else is left in it
  } catch {
    /* not empty (someone else's files) or already gone */
  }
  log(`removed ${human(total)} of local data`);
  return true;
}

module.exports = { cleanLocalData };
