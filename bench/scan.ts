/**
 * bench:scan — the scan host's redirect throughput against a bare Node `http` server answering 302 on the same
 * machine, then the worker's ingestion of every counted scan.
 *  - The scan host runs as its own process (src/main.scan.ts compiled with tsc, as production runs it), the bare
 *    server in another, and autocannon in a third (its programmatic API in a child), so the load generator never
 *    shares an event loop with a server. BENCH_LOG_LEVEL=info adds the per-request access log.
 *  - Each run sends a fixed number of requests (calibrated by a warm-up to last about BENCH_SECONDS) so that every
 *    request sent is answered, and counted, before autocannon returns: bare, scan, bare, scan. Goal: scan ≥ 60 % of bare, p99 ≤ 10 ms.
 *  - The scan process is then stopped (SIGTERM flushes its buffer), a worker (createWorkerApp) drains the stream,
 *    and qr_codes.scan_count must equal the number of 2xx/3xx answers autocannon reported to the scan host.
 */
import 'reflect-metadata';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import Redis from 'ioredis';
import { createWorkerApp } from '../src/app/bootstrap';
import { loadConfig } from '../src/common/config/config';
import { newId, newShortCode } from '../src/common/ids';
import { ormConfig } from '../src/mikro-orm.config';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';
import { parseScanEntry } from '../src/modules/analytics/scan-entry';
import { SCAN_STREAM, SCAN_STREAM_GROUP } from '../src/modules/scan/scan-contract';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_REQUESTS = 50_000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROOT = join(__dirname, '..');
const USER_AGENT = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const DESTINATION = 'https://example.com/spring?ref=poster';

/** The baseline: the least a Node server can do for a redirect. */
const BARE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  res.writeHead(302, { Location: ${JSON.stringify(`${DESTINATION}&utm_source=qr`)}, 'Cache-Control': 'no-store', 'Content-Length': '0' });
  res.end();
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));`;

/** autocannon's programmatic API in a child process; prints its result as JSON. */
const LOAD = `
const autocannon = require('autocannon');
const opts = JSON.parse(process.env.LOAD);
autocannon(opts, (err, result) => {
  if (err) { console.error(err); process.exit(1); }
  process.stdout.write(JSON.stringify(result));
});`;

interface LoadResult {
  start: string;
  finish: string;
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; p97_5: number; average: number; max: number };
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a child and resolves once it prints a line containing `ready`. */
function startChild(args: string[], env: NodeJS.ProcessEnv, what: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code} before it was ready: ${out}`)));
  });
}

function stopChild(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** `amount` requests, not a duration: autocannon then returns only once every request sent was answered, so its
 * 2xx/3xx count is exactly what the server counted. */
function load(url: string, amount: number): Promise<LoadResult> {
  const options = { url, amount, connections: CONNECTIONS, sampleInt: 50, headers: { 'user-agent': USER_AGENT, 'accept-language': 'en-GB,en;q=0.9' } };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', LOAD], {
      cwd: ROOT,
      env: { ...process.env, LOAD: JSON.stringify(options), NODE_PATH: join(ROOT, 'node_modules') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`autocannon exited with ${code}`))));
  });
}

/** CPU time (user + system) a child process has used so far, in ms (Linux /proc; NaN elsewhere). */
function cpuMs(child: ChildProcess): number {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** A load run plus the server's CPU time per request (a figure the 2-core noise of req/s does not blur). */
async function measured(url: string, amount: number, server: ChildProcess): Promise<LoadResult & { cpuUs: number }> {
  const before = cpuMs(server);
  const r = await load(url, amount);
  return { ...r, cpuUs: ((cpuMs(server) - before) * 1000) / r.requests.total };
}

const answered = (r: LoadResult) => r['2xx'] + r['3xx'];
const seconds = (r: LoadResult) => (Date.parse(r.finish) - Date.parse(r.start)) / 1000;
const rate = (r: LoadResult) => r.requests.total / seconds(r);
const line = (name: string, r: LoadResult & { cpuUs?: number }) =>
  `${name.padEnd(6)} ${r.requests.total.toString().padStart(8)} req in ${seconds(r).toFixed(2)} s  ${Math.round(rate(r)).toString().padStart(6)} req/s` +
  `  p50 ${r.latency.p50} ms  p99 ${r.latency.p99} ms  max ${r.latency.max} ms  3xx ${r['3xx']}  other ${r.non2xx - r['3xx']}  errors ${r.errors}` +
  (r.cpuUs === undefined ? '' : `  server CPU ${r.cpuUs.toFixed(1)} µs/req`);

async function main() {
  const config = loadConfig(process.env);
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const em = orm.em.fork() as unknown as EntityManager;
  const accounts = new AccountsService(em, loadPlans(config.plansFile));
  const org = await accounts.createOrganization({ name: 'Bench', plan: 'agency', email: 'bench@example.com' });
  const codeId = newId('qr');
  const shortCode = newShortCode();
  await em.execute(
    `insert into qr_codes (id, organization_id, kind, name, type, short_code, target, design, environment)
     values (?, ?, 'dynamic', 'Bench redirect', 'url', ?, ?::jsonb, '{}'::jsonb, 'live')`,
    [codeId, org.id, shortCode, JSON.stringify({ destination: DESTINATION, utm: { source: 'qr' } })],
  );

  const barePort = await freePort();
  const scanPort = await freePort();
  const bare = await startChild(['-e', BARE_SERVER], { ...process.env, PORT: String(barePort) }, 'bare server');
  // Compiled JavaScript, as production runs it: under ts-node every EventEmitter pays for the `domain` module that
  // ts-node's REPL loads. The build goes to the bench's own data directory (removed afterwards), not dist/.
  const build = join(process.env.LOCAL_DATA_DIR ?? join(ROOT, '.local', `bench-${process.pid}`), 'build');
  const buildStart = Date.now();
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', build], { cwd: ROOT, stdio: 'inherit' });
  console.log(`compiled the scan process in ${((Date.now() - buildStart) / 1000).toFixed(1)} s`);
  const nodeArgs = (process.env.BENCH_SCAN_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const scan = await startChild(
    [...nodeArgs, join(build, 'src', 'main.scan.js')],
    { ...process.env, SCAN_PORT: String(scanPort), NODE_ENV: 'production', APP_SECRET: 'bench-only-app-secret-0123456789', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn' },
    'scan process',
  );
  const bareUrl = `http://127.0.0.1:${barePort}/${shortCode}`;
  const scanUrl = `http://127.0.0.1:${scanPort}/${shortCode}`;

  const check = await fetch(scanUrl, { redirect: 'manual', headers: { 'user-agent': USER_AGENT } });
  console.log(`scan host: ${check.status} Location ${check.headers.get('location')} (Request-Id ${check.headers.get('request-id')})`);
  let counted = check.status === 302 ? 1 : 0;

  console.log(`\nwarm-up and calibration (twice ${WARMUP_REQUESTS} requests each), ${CONNECTIONS} connections`);
  let bareWarm!: LoadResult;
  let scanWarm!: LoadResult;
  for (let i = 0; i < 2; i++) {
    bareWarm = await load(bareUrl, WARMUP_REQUESTS);
    console.log(line('bare', bareWarm));
    scanWarm = await load(scanUrl, WARMUP_REQUESTS);
    console.log(line('scan', scanWarm));
    counted += answered(scanWarm);
  }

  console.log(`\nmeasured runs: a fixed number of requests each (about ${SECONDS} s), bare and scan alternating`);
  const runs: Array<{ name: string; r: LoadResult & { cpuUs: number } }> = [];
  for (let round = 0; round < 2; round++) {
    const b = await measured(bareUrl, Math.round(rate(bareWarm) * SECONDS), bare);
    console.log(line('bare', b));
    runs.push({ name: 'bare', r: b });
    const s = await measured(scanUrl, Math.round(rate(scanWarm) * SECONDS), scan);
    console.log(line('scan', s));
    runs.push({ name: 'scan', r: s });
    counted += answered(s);
  }
  await stopChild(bare);

  const total = (name: string) => runs.filter((x) => x.name === name).reduce((a, x) => ({ n: a.n + x.r.requests.total, s: a.s + seconds(x.r) }), { n: 0, s: 0 });
  const bareRate = total('bare').n / total('bare').s;
  const scanRate = total('scan').n / total('scan').s;
  const scanRuns = runs.filter((x) => x.name === 'scan').map((x) => x.r);
  const p50 = Math.max(...scanRuns.map((r) => r.latency.p50));
  const p99 = Math.max(...scanRuns.map((r) => r.latency.p99));
  console.log(`\nbare Node http 302 : ${Math.round(bareRate)} req/s`);
  console.log(`scan host redirect : ${Math.round(scanRate)} req/s`);
  console.log(`ratio              : ${((scanRate / bareRate) * 100).toFixed(1)} %  (goal ≥ 60 %) ${scanRate / bareRate >= 0.6 ? 'OK' : 'BELOW GOAL'}`);
  const cpu = (name: string) => runs.filter((x) => x.name === name).reduce((a, x) => a + x.r.cpuUs, 0) / 2;
  console.log(`server CPU per req : bare ${cpu('bare').toFixed(1)} µs, scan ${cpu('scan').toFixed(1)} µs (bare/scan ${((cpu('bare') / cpu('scan')) * 100).toFixed(1)} %)`);
  console.log(`scan latency       : p50 ${p50} ms, p99 ${p99} ms (worst of the measured runs; goal p99 ≤ 10 ms) ${p99 <= 10 ? 'OK' : 'ABOVE GOAL'}`);

  // SIGTERM: the scan process writes what it still buffers before it exits.
  const exit = await stopChild(scan);
  const redis = new Redis(config.redisUrl);
  const queued = await countQueued(redis);
  console.log(`\nscan process stopped (exit ${exit}); stream holds ${queued.entries} entries, ${queued.records} scans`);

  console.log(`autocannon 2xx/3xx answers from the scan host (warm-up, check and measured runs): ${counted}`);

  const worker = await createWorkerApp(config, { logLevel: 'silent' });
  const t0 = Date.now();
  const hasGroup = async () => ((await redis.xinfo('GROUPS', SCAN_STREAM).catch(() => [])) as unknown[][]).some((g) => g[1] === SCAN_STREAM_GROUP);
  const groupDeadline = Date.now() + 5_000;
  while (!(await hasGroup()) && Date.now() < groupDeadline) await sleep(100);
  if (!(await hasGroup())) {
    console.log('ingestion not available: no worker consumes the scan stream (src/modules/analytics)');
  } else {
    const deadline = Date.now() + 10 * 60_000;
    while ((await redis.xlen(SCAN_STREAM)) > 0 && Date.now() < deadline) await sleep(200);
    const drainedMs = Date.now() - t0;
    const [row] = await em.execute<{ scan_count: string }[]>('select scan_count from qr_codes where id = ?', [codeId]);
    const stored = Number(row.scan_count);
    const [days] = await em.execute<{ n: string | null }[]>('select sum(count) as n from scan_days where qr_code_id = ?', [codeId]);
    console.log(`worker drained the stream in ${(drainedMs / 1000).toFixed(1)} s (${Math.round(queued.records / (drainedMs / 1000))} scans/s)`);
    console.log(`qr_codes.scan_count = ${stored}, sum(scan_days.count) = ${days.n ?? 0}, scans queued = ${queued.records}`);
    console.log(
      stored === counted && Number(days.n) === counted && queued.records === counted
        ? `OK: analytics total ${stored} = scans queued = 2xx/3xx answers autocannon reported`
        : `MISMATCH: answers ${counted}, queued ${queued.records}, scan_count ${stored}, scan_days ${days.n ?? 0}`,
    );
  }
  await worker.close();
  redis.disconnect();
  await orm.close();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function countQueued(redis: Redis): Promise<{ entries: number; records: number }> {
  let entries = 0;
  let records = 0;
  let start = '-';
  for (;;) {
    const batch = await redis.xrange(SCAN_STREAM, start, '+', 'COUNT', 200);
    for (const [, fields] of batch) {
      entries++;
      records += parseScanEntry(fields)?.records.length ?? 0;
    }
    if (batch.length < 200) break;
    start = `(${batch[batch.length - 1][0]}`;
  }
  return { entries, records };
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
