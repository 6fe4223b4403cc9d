#!/usr/bin/env node
'use strict';
/* CI: `npm run local` from a clone in a directory only its owner may enter (mode 700, like root's home on Debian), with a
 * `mktemp -d`-style data directory. As root this is the case where PostgreSQL (run as the postgres system user) cannot
 * reach the binaries or the data. Starts the runner on free ports, waits for its banner, checks the API answers, then
 * stops it with SIGINT and expects a clean exit, an unchanged `git status`, and `npm run clean -- --yes` to remove the
 * data wherever it was kept. node_modules and dist are hard-linked (or copied) from this checkout
 * to keep the check fast. */
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const svc = require('../scripts/lib/services');
const { relocatedHome } = require('../scripts/lib/postgres');

async function main() {
  const base = fs.mkdtempSync(path.join(os.homedir(), '.scanlink-ci-'));
  fs.chmodSync(base, 0o700);
  const clone = path.join(base, 'repo');
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'scanlink-ci-data-'));
  try {
    execFileSync('git', ['clone', '-q', '--no-hardlinks', svc.ROOT, clone], { stdio: 'inherit' });
    for (const dir of ['node_modules', 'dist']) {
      try {
        execFileSync('cp', ['-al', path.join(svc.ROOT, dir), clone], { stdio: 'ignore' });
      } catch {
        execFileSync('cp', ['-a', path.join(svc.ROOT, dir), clone]);
      }
    }
    // Fresher than the clone's lock file and sources: the runner neither reinstalls nor rebuilds.
    const now = new Date(Date.now() + 1000);
    fs.utimesSync(path.join(clone, 'node_modules', '.package-lock.json'), now, now);
    fs.writeFileSync(path.join(clone, 'dist', '.build-stamp'), now.toISOString());
    fs.utimesSync(path.join(clone, 'dist', '.build-stamp'), now, now);
    const ports = {};
    for (const name of ['PORT', 'SCAN_PORT', 'WORKER_PORT', 'LOCAL_PG_PORT', 'LOCAL_REDIS_PORT']) ports[name] = String(await svc.freePort());
    const env = { ...process.env, ...ports, LOCAL_DATA_DIR: data, LOG_LEVEL: 'warn' };
    for (const k of ['DATABASE_URL', 'REDIS_URL', 'API_BASE_URL', 'SCAN_BASE_URL', 'IMAGE_BASE_URL', 'NODE_ENV']) delete env[k];
    svc.log(`npm run local in ${clone} (mode 700 parent), data in ${data}, as uid ${process.getuid()}`);
    const child = spawn('npm', ['run', 'local'], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const collect = (c) => {
      out += c;
      process.stderr.write(c);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    let early;
    void exited.then((c) => (early = c));
    await svc.waitFor(async () => {
      if (early !== undefined) throw new Error(`npm run local exited (${early}) before its banner`);
      return out.includes('Scanlink is running.');
    }, 'the local runner banner', 240000);
    const key = /Demo API key:\s+(\S+)/.exec(out)[1];
    const res = await fetch(`http://127.0.0.1:${ports.PORT}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status !== 200) throw new Error(`GET /v1/me answered ${res.status}`);
    child.kill('SIGINT');
    const code = await exited;
    child.removeAllListeners();
    if (code !== 0) throw new Error(`npm run local exited with ${code} after SIGINT`);
    if (/EACCES|Error: .*\n\s+at /.test(out)) throw new Error('the runner printed a stack trace or EACCES');
    // A new user's first `git status` after `npm run local` shows nothing they did not change.
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' });
    if (dirty) throw new Error(`npm run local changed the clone:\n${dirty}`);
    // `npm run clean` removes the data wherever it went: the data directory and PostgreSQL's relocated cluster.
    const pgHome = relocatedHome(path.join(data, 'pg'));
    const hadRelocated = fs.existsSync(pgHome);
    const refused = spawnSync('npm', ['run', '-s', 'clean'], { cwd: clone, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (refused.status === 0 || !/--yes/.test(refused.stderr)) throw new Error(`npm run clean without a terminal or --yes did not refuse:\n${refused.stderr}`);
    const clean = spawnSync('npm', ['run', '-s', 'clean', '--', '--yes'], { cwd: clone, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    process.stderr.write(clean.stderr);
    if (clean.status !== 0) throw new Error(`npm run clean -- --yes failed (${clean.status})`);
    if (fs.existsSync(data) || fs.existsSync(pgHome)) throw new Error(`npm run clean left ${fs.existsSync(data) ? data : pgHome}`);
    if (process.getuid() === 0 && !hadRelocated) throw new Error(`as root PostgreSQL's data was expected in ${pgHome}`);
    svc.log('local runner from a private clone: ok');
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
    fs.rmSync(data, { recursive: true, force: true });
    // Where the runner kept PostgreSQL's data when the postgres user could not enter `data` (see scripts/lib/postgres.js).
    fs.rmSync(relocatedHome(path.join(data, 'pg')), { recursive: true, force: true });
  }
}

main().catch((err) => {
  svc.log(`error: ${err.message}`);
  process.exit(1);
});
