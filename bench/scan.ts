/**
 * bench:scan — the scan host's redirect throughput at its default settings (LOG_LEVEL info, no flags) against a bare
 * Node `http` server answering the same 302 on the same machine, measured three ways, then the worker's ingestion.
 *  - Each server is its own process (the scan host compiled with tsc, as production runs it); every load generator
 *    runs in a child. Runs alternate bare, scan, three rounds per way; the figures are medians of the three rounds,
 *    and the ratio is taken per round (a busy machine shifts both sides of a round alike).
 *  - Ways: autocannon with one iPhone user agent (a fixed number of requests, so every request is answered and the
 *    scans recorded must equal the redirects exactly); wrk -t2 -c50 with the same user agent; wrk rotating through
 *    bench/user-agents.json (222 browsers, 49 bots; bots are answered, never counted).
 *  - The worker is stopped while those run; then it drains the newest of what they queued (scans/s), and a sustained
 *    load runs with the worker consuming, printing the stream backlog every second. Finally qr_codes.scan_count must
 *    equal the scans it drained plus the sustained run's redirects.
 *  - A GS1 run: the same autocannon load on the GS1 Digital Link resolver (`/01/{gtin}/10/{lot}`, a 307), against
 *    the same bare server, with the same figures.
 *  - Two smart-URL runs (docs/smart-urls.md), the same autocannon load: a code with 20 rules whose last one matches,
 *    and a code with a 50/50 split; each against the same bare server.
 * Before the warm-up the scan process is asked /health/ready and /metrics once, as a deployment asks it from its first
 * minute (scan-load.ts probeLikeADeployment; BENCH_PROBE=0 skips it).
 * BENCH_SECONDS (default 5) sets the length of one run; BENCH_CPU_PROFILE=1 profiles the scan process and writes
 * bench/scan-profile.txt.
 * To compare revisions with this same script (scan-cpu.ts does it per request): BENCH_REVISION=<commit> runs that
 * commit's processes (compiled once into .local/bench-builds/<commit>, against this checkout's schema) instead of the
 * working tree's, and BENCH_WAYS (e.g. `1`; ids 1, gs1, smart20, smartsplit, 2, 3, comma-separated) runs only those
 * ways and no ingestion. Neither changes what a way measures; unset, every way and the ingestion run.
 */
import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import Redis from 'ioredis';
import { loadConfig } from '../src/common/config/config';
import { parseScanEntry } from '../src/modules/analytics/scan-entry';
import { SCAN_STREAM } from '../src/modules/scan/scan-contract';
import { summarizeCpuProfile } from './cpu-profile';
import { BARE_SERVER, buildRevision, GS1_PATH, seedGs1Resolver, seedRedirect, seedSmartUrls } from './scan-seed';
import { autocannon, ensureWrk, freePort, median, probeLikeADeployment, rate, ROOT, type Run, startChild, stopChild, wrk, wrkScript } from './scan-load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = 3;
const CONNECTIONS = 50;
const SUSTAINED_SECONDS = 15;
/** Stream entries (of up to 500 scans) of the measured runs the worker drains. */
const KEPT_ENTRIES = 300;
const REVISION = process.env.BENCH_REVISION ?? 'worktree';
/** A way's id: its name up to the first `.`, lower case, without spaces (`1`, `gs1`, `smart20`, …). */
const wayId = (name: string) => name.split('.')[0].toLowerCase().replace(/\s+/g, '');
const WAYS = process.env.BENCH_WAYS ? process.env.BENCH_WAYS.split(',').map((w) => w.trim().toLowerCase()) : null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const n = (x: number) => Math.round(x).toLocaleString('en-US');
const line = (name: string, r: Run) =>
  `  ${name.padEnd(5)} ${n(r.requests).padStart(9)} req in ${r.seconds.toFixed(1)} s ${n(rate(r)).padStart(7)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ` +
  `CPU ${r.cpuUs.toFixed(1)} µs/req (event loop ${r.loopCpuUs.toFixed(1)})  errors ${r.errors}`;
const load = () => `load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on this machine`;

/** Scans in the stream entries added since the last call (the worker is stopped, nothing is removed meanwhile). */
class StreamTally {
  private last = '-';
  /** Every scan counted so far. */
  total = 0;
  constructor(private readonly redis: Redis) {}
  async next(): Promise<number> {
    let records = 0;
    for (;;) {
      const batch = await this.redis.xrange(SCAN_STREAM, this.last === '-' ? '-' : `(${this.last}`, '+', 'COUNT', 500);
      for (const [id, fields] of batch) {
        records += parseScanEntry(fields)?.records.length ?? 0;
        this.last = id;
      }
      if (batch.length < 500) {
        this.total += records;
        return records;
      }
    }
  }
}

interface Way {
  name: string;
  run(url: string, server: ChildProcess, scan: boolean): Promise<Run>;
  /** Whether the scans the scan host queued during the way's scan runs match what the load generator saw. */
  check(recorded: number, scanRuns: Run[]): string;
}

async function measure(way: Way, bareUrl: string, scanUrl: string, bare: ChildProcess, scan: ChildProcess, tally: StreamTally) {
  console.log(`\n${way.name} (${load()})`);
  const ratios: number[] = [];
  const bares: Run[] = [];
  const scans: Run[] = [];
  await sleep(1000); // the scans of the previous load are flushed (every 250 ms) before the tally starts
  await tally.next();
  for (let round = 0; round < ROUNDS; round++) {
    const b = await way.run(bareUrl, bare, false);
    console.log(line('bare', b));
    const s = await way.run(scanUrl, scan, true);
    console.log(line('scan', s));
    bares.push(b);
    scans.push(s);
    ratios.push(rate(s) / rate(b));
  }
  await sleep(1000); // the scan host flushes every 250 ms
  const check = way.check(await tally.next(), scans);
  const ratio = median(ratios);
  const p99 = median(scans.map((r) => r.p99));
  return {
    name: way.name,
    text:
      `  ratio ${(ratio * 100).toFixed(1)} % (rounds ${ratios.map((r) => (r * 100).toFixed(1)).join(' / ')}; goal ≥ 60 %) ${ratio >= 0.6 ? 'OK' : 'BELOW GOAL'}\n` +
      `  scan ${n(median(scans.map(rate)))} req/s, bare ${n(median(bares.map(rate)))} req/s\n` +
      `  scan p50 ${median(scans.map((r) => r.p50))} ms, p99 ${p99} ms (goal ≤ 10 ms) ${p99 <= 10 ? 'OK' : 'ABOVE GOAL'}; bare p99 ${median(bares.map((r) => r.p99))} ms\n` +
      `  server CPU per request: scan ${median(scans.map((r) => r.cpuUs)).toFixed(1)} µs (event loop ${median(scans.map((r) => r.loopCpuUs)).toFixed(1)} µs), ` +
      `bare ${median(bares.map((r) => r.cpuUs)).toFixed(1)} µs (event loop ${median(bares.map((r) => r.loopCpuUs)).toFixed(1)} µs)\n` +
      `  recorded: ${check}`,
  };
}

async function main() {
  const config = loadConfig(process.env);
  const { orm, em, codeId, shortCode } = await seedRedirect(config);
  const gs1CodeId = await seedGs1Resolver(em, codeId);
  const smart = await seedSmartUrls(em, codeId);
  const data = process.env.LOCAL_DATA_DIR ?? join(ROOT, '.local', `bench-${process.pid}`);
  const t0 = Date.now();
  const build = buildRevision(REVISION, data, 0);
  console.log(`compiled the processes of ${REVISION} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${build}`);

  // The scan host as `npm run local` and docker compose run it: their defaults (LOG_LEVEL info), no tuning flags.
  const processEnv = { ...process.env, NODE_ENV: 'production', APP_SECRET: 'bench-only-app-secret-0123456789' } as NodeJS.ProcessEnv;
  delete processEnv.LOG_LEVEL;
  if (process.env.BENCH_LOG_LEVEL) processEnv.LOG_LEVEL = process.env.BENCH_LOG_LEVEL;
  const profileDir = join(data, 'profile');
  const nodeArgs = process.env.BENCH_CPU_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const barePort = await freePort();
  const scanPort = await freePort();
  const bare = await startChild(['-e', BARE_SERVER], { ...process.env, PORT: String(barePort) }, 'bare server');
  const scan = await startChild([...nodeArgs, join(build, 'src', 'main.scan.js')], { ...processEnv, SCAN_PORT: String(scanPort) }, 'scan process');
  const bareUrl = `http://127.0.0.1:${barePort}/${shortCode}`;
  const scanUrl = `http://127.0.0.1:${scanPort}/${shortCode}`;
  const gs1Url = `http://127.0.0.1:${scanPort}${GS1_PATH}`;
  const rulesUrl = `http://127.0.0.1:${scanPort}/${smart.rules.shortCode}`;
  const splitUrl = `http://127.0.0.1:${scanPort}/${smart.split.shortCode}`;
  const check = await fetch(scanUrl, { redirect: 'manual', headers: { 'user-agent': 'bench' } });
  console.log(`scan host (LOG_LEVEL ${processEnv.LOG_LEVEL ?? 'default: info'}): ${check.status} Location ${check.headers.get('location')}`);
  const gs1Check = await fetch(gs1Url, { redirect: 'manual', headers: { 'user-agent': 'bench' } });
  console.log(`GS1 resolver ${GS1_PATH}: ${gs1Check.status} Location ${gs1Check.headers.get('location')}`);
  for (const [label, url] of [['smart URL, 20 rules', rulesUrl], ['smart URL, 50/50 split', splitUrl]]) {
    const smartCheck = await fetch(url, { redirect: 'manual', headers: { 'user-agent': 'bench' } });
    console.log(`${label}: ${smartCheck.status} Location ${smartCheck.headers.get('location')}`);
  }
  console.log(`scan host ${await probeLikeADeployment(`http://127.0.0.1:${scanPort}`)}`);
  const redis = new Redis(config.redisUrl);
  const tally = new StreamTally(redis);

  console.log(`\nwarm-up, ${load()}`);
  const warmBare = await autocannon(bareUrl, 30_000, CONNECTIONS, bare);
  const warmScan = await autocannon(scanUrl, 30_000, CONNECTIONS, scan);
  console.log(`${line('bare', warmBare)}\n${line('scan', warmScan)}`);

  const agents = JSON.parse(readFileSync(join(__dirname, 'user-agents.json'), 'utf8')) as { browsers: string[]; bots: string[] };
  const rotation = [...agents.browsers.map((ua) => ({ ua, bot: false })), ...agents.bots.map((ua) => ({ ua, bot: true }))];
  // Bots spread through the rotation rather than in one block.
  rotation.sort((a, b) => (a.ua.length * 7919) % 271 - (b.ua.length * 7919) % 271);
  const wrkBin = ensureWrk();
  const inflight = (runs: Run[]) => runs.reduce((a, r) => a + (r.botSent ?? 0) + (r.browserSent ?? 0) - r.requests, 0);
  const within = (recorded: number, low: number, high: number) =>
    `${n(recorded)} scans queued, expected ${n(low)}–${n(high)} (wrk does not wait for the requests in flight when it stops) ${recorded >= low && recorded <= high ? 'OK' : 'MISMATCH'}`;
  const exact = (recorded: number, runs: Run[]) => {
    const sent = runs.reduce((a, r) => a + r.redirects, 0);
    return `${n(recorded)} scans queued = ${n(sent)} redirects answered ${recorded === sent ? 'OK' : 'MISMATCH'}`;
  };
  const ways: Way[] = [
    {
      name: `1. autocannon, ${CONNECTIONS} connections, one iPhone user agent`,
      run: (url, server, isScan) => autocannon(url, Math.round(rate(isScan ? warmScan : warmBare) * SECONDS), CONNECTIONS, server),
      check: exact,
    },
    {
      // The same load on the GS1 Digital Link resolver (307 after two cache lookups: the lot's level and the GTIN's).
      name: `GS1. autocannon, ${CONNECTIONS} connections, one iPhone user agent, GS1 resolver ${GS1_PATH} (scan side only)`,
      run: (url, server, isScan) => autocannon(isScan ? gs1Url : url, Math.round(rate(isScan ? warmScan : warmBare) * SECONDS), CONNECTIONS, server),
      check: exact,
    },
    {
      // A smart URL with 20 rules, only the last matching an iPhone: every condition kind is evaluated per scan.
      name: `Smart 20. autocannon, ${CONNECTIONS} connections, one iPhone user agent, smart URL with 20 rules, the last matching (scan side only)`,
      run: (url, server, isScan) => autocannon(isScan ? rulesUrl : url, Math.round(rate(isScan ? warmScan : warmBare) * SECONDS), CONNECTIONS, server),
      check: exact,
    },
    {
      name: `Smart split. autocannon, ${CONNECTIONS} connections, one iPhone user agent, smart URL with a 50/50 split (scan side only)`,
      run: (url, server, isScan) => autocannon(isScan ? splitUrl : url, Math.round(rate(isScan ? warmScan : warmBare) * SECONDS), CONNECTIONS, server),
      check: exact,
    },
  ];
  if (wrkBin) {
    const one = wrkScript(join(data, 'one.lua'), null);
    const mix = wrkScript(join(data, 'mix.lua'), rotation);
    ways.push(
      {
        name: `2. wrk -t2 -c${CONNECTIONS}, one iPhone user agent`,
        run: (url, server) => wrk(wrkBin, url, one, SECONDS, CONNECTIONS, server),
        check: (recorded, runs) => within(recorded, runs.reduce((a, r) => a + r.redirects, 0), runs.reduce((a, r) => a + r.redirects, 0) + CONNECTIONS * runs.length),
      },
      {
        name: `3. wrk -t2 -c${CONNECTIONS}, ${agents.browsers.length} browser and ${agents.bots.length} bot user agents in rotation`,
        run: (url, server) => wrk(wrkBin, url, mix, SECONDS, CONNECTIONS, server),
        check: (recorded, runs) => {
          const browsers = runs.reduce((a, r) => a + (r.browserSent ?? 0), 0);
          return within(recorded, browsers - inflight(runs), browsers);
        },
      },
    );
  } else {
    console.log('\nwrk is not installed and could not be installed (needs root and Debian): ways 2 and 3 skipped');
  }
  if (WAYS) {
    const unknown = WAYS.filter((w) => !ways.some((way) => wayId(way.name) === w));
    if (unknown.length > 0) throw new Error(`BENCH_WAYS: no way ${unknown.join(', ')} (${ways.map((w) => wayId(w.name)).join(', ')})`);
  }
  const results = [];
  for (const way of ways) if (!WAYS || WAYS.includes(wayId(way.name))) results.push(await measure(way, bareUrl, scanUrl, bare, scan, tally));
  await stopChild(bare);

  console.log(`\n=== scan host against bare Node, median of ${ROUNDS} rounds per way ===`);
  for (const r of results) console.log(`${r.name}\n${r.text}`);
  await sleep(1000);
  await tally.next();

  if (WAYS) await stopChild(scan);
  else await ingestion(processEnv, build, scan, scanUrl, warmScan, redis, tally.total, em, [codeId, gs1CodeId, smart.rules.id, smart.split.id]);
  if (nodeArgs.length > 0) {
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) {
      mkdirSync(join(ROOT, 'bench'), { recursive: true });
      writeFileSync(join(ROOT, 'bench', 'scan-profile.txt'), summarizeCpuProfile(join(profileDir, file), 40));
      console.log('CPU profile summary written to bench/scan-profile.txt');
    }
  }
  redis.disconnect();
  await orm.close();
}

/** The worker (compiled, its own process) drains what the runs queued, then consumes during a sustained load. */
async function ingestion(
  env: NodeJS.ProcessEnv, build: string, scan: ChildProcess, scanUrl: string, warmScan: Run, redis: Redis, queuedAbove: number, em: EntityManager, codeIds: string[],
) {
  console.log(`\n=== ingestion: one worker (${load()}) ===`);
  let queued = queuedAbove;
  const backlog = async () => Number(await redis.xlen(SCAN_STREAM));
  // The runs above queued about a million scans, each run already checked against its redirects; the worker drains
  // the newest KEPT_ENTRIES entries of them (so the bench stays short) and the rest are removed unstored.
  await redis.xtrim(SCAN_STREAM, 'MAXLEN', KEPT_ENTRIES);
  const kept = await new StreamTally(redis).next();
  console.log(`kept the newest ${n(kept)} of the ${n(queued)} scans queued above for the worker; the others were removed`);
  queued = kept;
  const t0 = Date.now();
  const worker = await startChild([join(build, 'src', 'main.worker.js')], { ...env, LOG_LEVEL: 'warn', WORKER_PORT: String(await freePort()) }, 'worker');
  while ((await backlog()) > 0) await sleep(250);
  const drained = (Date.now() - t0) / 1000;
  console.log(`backlog of ${n(queued)} scans drained in ${drained.toFixed(1)} s: ${n(queued / drained)} scans/s (one code, today; includes the worker's start)`);

  console.log(`sustained load for ${SUSTAINED_SECONDS} s (autocannon, one user agent) with the worker consuming; stream backlog every second:`);
  const sampler = { stop: false, peak: 0 };
  const sampling = (async () => {
    const start = Date.now();
    while (!sampler.stop) {
      await sleep(1000);
      const entries = await backlog();
      sampler.peak = Math.max(sampler.peak, entries);
      console.log(`  t+${Math.round((Date.now() - start) / 1000)} s: ${entries} stream entries waiting (≤ 500 scans each)`);
    }
  })();
  const sustained = await autocannon(scanUrl, Math.round(rate(warmScan) * SUSTAINED_SECONDS), 50, scan);
  sampler.stop = true;
  await sampling;
  const t1 = Date.now();
  const exit = await stopChild(scan); // SIGTERM: the scan host writes what it still buffers
  while ((await backlog()) > 0) await sleep(100);
  console.log(
    `  scan host answered ${n(rate(sustained))} redirects/s; peak backlog ${sampler.peak} entries; the rest drained ${((Date.now() - t1) / 1000).toFixed(1)} s after the load stopped (scan exit ${exit})`,
  );
  await sleep(500);
  await stopChild(worker);
  // The kept scans may be of the short code or of the GS1 code (whichever way ran last): both codes are summed.
  const [row] = await em.execute<{ scan_count: string }[]>('select sum(scan_count) as scan_count from qr_codes where id in (?)', [codeIds]);
  const [days] = await em.execute<{ n: string | null }[]>('select sum(count) as n from scan_days where qr_code_id in (?)', [codeIds]);
  const expected = queued + sustained.redirects;
  const stored = Number(row.scan_count);
  console.log(
    stored === expected && Number(days.n) === expected
      ? `\nOK: scans stored (qr_codes.scan_count = sum(scan_days.count) = ${n(stored)}) = scans kept above + redirects of the sustained run`
      : `\nMISMATCH: scan_count ${stored}, scan_days ${days.n}, expected ${expected} (queued ${queued} + sustained ${sustained.redirects})`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
