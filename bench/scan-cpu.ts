/**
 * bench:scan-cpu — the scan process's cost per redirect, compared between git revisions in one run, in figures that a
 * busy machine moves little (throughput ratios do not hold still while other work shares the cores).
 *
 *   npm run bench:scan-cpu -- [revision …]      (default: HEAD~1 HEAD; `worktree` = this checkout as it is)
 *
 * Each revision is compiled with tsc and its scan process started as production runs it (LOG_LEVEL at its default
 * `info`, no flags), beside a bare Node `http` server answering the same 302. After a warm-up, every round loads each
 * process in turn with BENCH_REQUESTS autocannon requests (50 connections, one iPhone user agent, every one a counted
 * scan), and the figures are medians over BENCH_ROUNDS rounds:
 *  - default: the process's CPU time (user + system, from /proc) per request, in µs, and its main thread's alone (the
 *    event loop that answers; the scan encoder thread and V8's helper threads are the difference);
 *  - BENCH_CALLGRIND=1: the processes run under valgrind's callgrind, instrumented only while measured, and the figure
 *    is instructions per request (user space only: system calls are not counted). The machine's load does not move
 *    it, but garbage collection does: a window that holds a major GC cycle counts 30–50 % more, so windows must be
 *    long (default 20,000 requests, about 15 minutes a run on a 2-core VM).
 *    SCAN_FLUSH_INTERVAL_MS is 60 s there so that the scan buffer flushes at 500 scans, as it does at full speed,
 *    rather than every few dozen scans at valgrind's pace.
 *  - BENCH_CPU_PROFILE=1 (not with callgrind): each scan process runs with `--cpu-prof` and its profile is summarized
 *    (top frames by self time, bench/cpu-profile.ts) into bench/scan-cpu-profile-<n>.txt, n the revision's position.
 *  - BENCH_PERF=1 (not with callgrind): every process runs with `--perf-basic-prof` and `perf record -e cpu-clock` is
 *    attached to it for the measured rounds only; the CPU time per symbol (JavaScript, Node's C++ and the kernel's
 *    share of the socket calls alike), in µs per request, goes to bench/scan-cpu-perf.txt, one column per process.
 *    Unlike a --cpu-prof profile it samples only while the process is on a CPU, so the machine's load does not charge
 *    waiting time to whatever frame was running (a socket write that wakes the load generator, above all).
 *
 * Each scan process is asked /health/ready and /metrics once after it starts, as a deployment asks it
 * (scan-load.ts probeLikeADeployment; BENCH_PROBE=0 skips it).
 *
 * BENCH_CODES (default `plain`) lists the codes each scan process is loaded with, comma-separated, one row per code
 * and revision: `plain` (a url code), `rules` (a smart URL with 20 rules, the last matching) and `split` (a smart URL
 * with a 50/50 split), the codes of bench:scan's smart-URL rows (scan-seed.ts); smart URLs need a revision that has
 * them. Rounds go through every row in turn, so `BENCH_CODES=plain,rules` answers "what does the gated path cost".
 *
 * A revision's build is kept in .local/bench-builds/<commit> and reused (a commit never changes; `worktree` is always
 * compiled). `BENCH_COMPILE_ONLY=1` builds the revisions and stops: run it first, outside the shared benchmark lock,
 * so that the lock is held while measuring only (tsc takes a minute or more a revision on a busy machine).
 */
import 'reflect-metadata';
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/common/config/config';
import { summarizeCpuProfile } from './cpu-profile';
import { BARE_SERVER, buildRevision, seedRedirect, seedSmartUrls } from './scan-seed';
import { autocannon, freePort, median, probeLikeADeployment, ROOT, startChild, stopChild } from './scan-load';

const CALLGRIND = process.env.BENCH_CALLGRIND === '1';
const PROFILE = !CALLGRIND && process.env.BENCH_CPU_PROFILE === '1';
const PERF = !CALLGRIND && process.env.BENCH_PERF === '1';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (CALLGRIND ? 2 : 5));
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? (CALLGRIND ? 20_000 : 100_000));
const WARM_UP = Number(process.env.BENCH_WARM_UP ?? (CALLGRIND ? 20_000 : 50_000));
const CONNECTIONS = 50;
const COMPILE_ONLY = process.env.BENCH_COMPILE_ONLY === '1';
const CODES = (process.env.BENCH_CODES ?? 'plain').split(',').map((c) => c.trim());
for (const c of CODES) if (!['plain', 'rules', 'split'].includes(c)) throw new Error(`BENCH_CODES: unknown code '${c}' (plain, rules, split)`);

interface Target {
  name: string;
  child: ChildProcess;
  url: string;
  figures: number[];
  /** The main thread's CPU µs per request (its event loop), beside the process's. */
  loop: number[];
}

const load = () => `load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`;

/** Instructions counted by callgrind in the process since instrumentation was switched on (the newest dump's total). */
function measuredInstructions(dir: string, pid: number, requests: () => Promise<unknown>): Promise<number> {
  const control = (...args: string[]) => execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' });
  control('-i', 'on');
  return requests().then(() => {
    control('-d');
    control('-i', 'off');
    const dumps = readdirSync(dir).filter((f) => f.startsWith(`callgrind.${pid}.`));
    const newest = dumps.sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).pop()!;
    const totals = /^totals: (\d+)/m.exec(readFileSync(join(dir, newest), 'utf8'));
    if (!totals) throw new Error(`no totals in ${newest}`);
    return Number(totals[1]);
  });
}

/** `perf record` on a running process until stop() (SIGINT: perf writes its file and exits). */
function perfRecord(pid: number, file: string): { stop: () => Promise<void> } {
  const perf = spawn('perf', ['record', '-q', '-g', '-e', 'cpu-clock', '-F', '1999', '-p', String(pid), '-o', file], { stdio: 'ignore' });
  return {
    stop: () =>
      new Promise((resolve) => {
        perf.once('exit', () => resolve());
        perf.kill('SIGINT');
      }),
  };
}

/** µs of CPU per request by symbol, one column per process: `perf report` of each recording (cpu-clock samples). */
function perfTable(files: { name: string; file: string }[], requests: number, top = 60): string {
  const columns = files.map(({ file }) => {
    const out = execFileSync('perf', ['report', '-i', file, '--stdio', '--no-children', '--sort', 'dso,symbol', '-F', 'sample,dso,symbol', '-g', 'none', '-t', '\t'], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const freq = 1999;
    let total = 0;
    const bySymbol = new Map<string, number>();
    for (const line of out.split('\n')) {
      if (line.startsWith('#') || !line.trim()) continue;
      const [samples, dso, symbol] = line.split('\t').map((x) => x.trim());
      // JIT code's addresses differ between processes, and so do the build directories and line numbers of revisions:
      // one name per function and file.
      const name = symbol
        .replace(/^\[[.k]\] /, '')
        .replace(/^JS:[*~^+]?/, 'JS:')
        .replace(/\S*\/(?:bench-builds\/[0-9a-f]+|build-\d+)\//, '')
        .replace(/:\d+:\d+\s*$/, '');
      const key = `${name}  (${dso.startsWith('[JIT]') ? 'JIT' : dso})`;
      bySymbol.set(key, (bySymbol.get(key) ?? 0) + Number(samples));
      total += Number(samples);
    }
    return { bySymbol, total, usPer: (n: number) => (n / freq / requests) * 1e6 };
  });
  const keys = new Map<string, number>();
  for (const c of columns) for (const [k, n] of c.bySymbol) keys.set(k, Math.max(keys.get(k) ?? 0, c.usPer(n)));
  const fmt = (x: number) => x.toFixed(2).padStart(8);
  const lines = [
    `CPU µs per request by symbol (perf record -e cpu-clock -F 1999, ${requests} requests), one column per process:`,
    files.map((f) => f.name.padStart(Math.max(8, f.name.length))).join(' '),
    columns.map((c, i) => fmt(c.usPer(c.total)).padStart(Math.max(8, files[i].name.length))).join(' ') + '  (all)',
  ];
  // By kind: the kernel (socket calls, scheduling), V8 and Node's C++ (the node binary: parser, GC, ICs, OpenSSL),
  // JavaScript by origin, and the rest (libc's allocator).
  const kind = (k: string): string =>
    k.endsWith('([kernel.kallsyms])') ? 'kernel' : k.endsWith('(node)') ? 'node binary (V8, Node C++, OpenSSL)' : !k.endsWith('(JIT)') ? 'other (libc, …)' : / src\//.test(k) ? 'JS: src/' : /JS:\S* node:/.test(k) ? 'JS: node:' : 'JS: other (node_modules, builtins)';
  const kinds = ['kernel', 'node binary (V8, Node C++, OpenSSL)', 'JS: node:', 'JS: src/', 'JS: other (node_modules, builtins)', 'other (libc, …)'];
  for (const name of kinds) {
    const sums = columns.map((c) => [...c.bySymbol].reduce((sum, [k, n]) => (kind(k) === name ? sum + n : sum), 0));
    lines.push(columns.map((c, i) => fmt(c.usPer(sums[i])).padStart(Math.max(8, files[i].name.length))).join(' ') + `  [${name}]`);
  }
  for (const [k] of [...keys].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    lines.push(columns.map((c, i) => fmt(c.usPer(c.bySymbol.get(k) ?? 0)).padStart(Math.max(8, files[i].name.length))).join(' ') + `  ${k}`);
  }
  return lines.join('\n') + '\n';
}

/** Node flags of a process under BENCH_PERF: a perf map of JIT code (/tmp/perf-<pid>.map), and V8's log, which comes
 * with it, in the run's directory rather than as an isolate-*.log in the checkout. */
const perfFlags = (data: string, name: string): string[] => ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${join(data, `v8-${name}.log`)}`];

async function main() {
  const revisions = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['HEAD~1', 'HEAD'];
  const data = process.env.LOCAL_DATA_DIR ?? join(ROOT, '.local', `bench-${process.pid}`);
  const builds = revisions.map((revision, i) => buildRevision(revision, data, i));
  if (COMPILE_ONLY) {
    console.log(`compiled: ${revisions.map((r, i) => `${r} → ${builds[i]}`).join(', ')}`);
    return;
  }
  const config = loadConfig(process.env);
  const { orm, em, codeId, shortCode } = await seedRedirect(config);
  const smart = await seedSmartUrls(em, codeId);
  await orm.close();
  const codePath: Record<string, string> = { plain: shortCode, rules: smart.rules.shortCode, split: smart.split.shortCode };
  const env = { ...process.env, NODE_ENV: 'production', APP_SECRET: 'bench-only-app-secret-0123456789' } as NodeJS.ProcessEnv;
  delete env.LOG_LEVEL;
  if (CALLGRIND) env.SCAN_FLUSH_INTERVAL_MS = '60000';
  const wrapper = (name: string) =>
    CALLGRIND ? ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(data, 'callgrind.%p')}`, `--log-file=${join(data, `valgrind-${name}.log`)}`] : [];

  const targets: Target[] = [];
  const port = await freePort();
  targets.push({
    name: 'bare Node',
    child: await startChild([...(PERF ? perfFlags(data, 'bare') : []), '-e', BARE_SERVER], { ...process.env, PORT: String(port) }, 'bare server', wrapper('bare')),
    url: `http://127.0.0.1:${port}/${shortCode}`,
    figures: [],
    loop: [],
  });
  // One scan process per revision and code, so that a profile or perf recording holds one kind of request.
  for (const [i, revision] of revisions.entries()) {
    for (const code of CODES) {
      const j = targets.length - 1;
      const name = CODES.length === 1 && code === 'plain' ? revision : `${revision} ${code}`;
      const scanPort = await freePort();
      const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${join(data, `profile-${j}`)}`] : PERF ? perfFlags(data, `scan-${j}`) : [];
      const child = await startChild([...profile, join(builds[i], 'src', 'main.scan.js')], { ...env, SCAN_PORT: String(scanPort) }, `scan process (${name})`, wrapper(`scan-${j}`));
      targets.push({ name: `scan ${name}`, child, url: `http://127.0.0.1:${scanPort}/${codePath[code]}`, figures: [], loop: [] });
      console.log(`scan process (${name}): ${await probeLikeADeployment(`http://127.0.0.1:${scanPort}`)}`);
    }
  }
  console.log(`${CALLGRIND ? 'instructions' : 'CPU µs'} per request, ${REQUESTS} requests a round, ${ROUNDS} rounds, warm-up ${WARM_UP} (${load()})`);
  for (const t of targets) await autocannon(t.url, WARM_UP, CONNECTIONS, t.child);
  // Kept after the run (the run's directory is deleted) for `perf report -i … -g` on the callers of a frame.
  const perfDir = join(ROOT, '.local', 'bench-perf');
  if (PERF) mkdirSync(perfDir, { recursive: true });
  const perfFiles = targets.map((t, i) => ({ name: i === 0 ? 'bare' : t.name.slice('scan '.length), file: join(perfDir, `perf-${i}.data`) }));
  const perfs = PERF ? targets.map((t, i) => perfRecord(t.child.pid!, perfFiles[i].file)) : [];

  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of targets) {
      let figure: number;
      let errors = 0;
      if (CALLGRIND) {
        figure =
          (await measuredInstructions(data, t.child.pid!, async () => (errors = (await autocannon(t.url, REQUESTS, CONNECTIONS, t.child)).errors))) / REQUESTS;
      } else {
        const run = await autocannon(t.url, REQUESTS, CONNECTIONS, t.child);
        figure = run.cpuUs;
        errors = run.errors;
        t.loop.push(run.loopCpuUs);
      }
      t.figures.push(figure);
      const loop = CALLGRIND ? '' : ` (event loop ${t.loop[t.loop.length - 1].toFixed(2)})`;
      console.log(`  round ${round} ${t.name.padEnd(20)} ${CALLGRIND ? Math.round(figure).toLocaleString('en-US') : figure.toFixed(2)}${loop}${errors ? ` (${errors} errors)` : ''}  ${load()}`);
    }
  }
  for (const p of perfs) await p.stop();
  for (const t of targets) await stopChild(t.child);
  if (PERF) {
    const out = join(ROOT, 'bench', 'scan-cpu-perf.txt');
    writeFileSync(out, `${perfFiles.slice(1).map((f, i) => `column ${i + 2}: ${f.name}`).join(', ')}\n${perfTable(perfFiles, ROUNDS * REQUESTS)}`);
    console.log(`perf profiles: ${out}`);
  }
  if (PROFILE) {
    for (const [j, t] of targets.slice(1).entries()) {
      const dir = join(data, `profile-${j}`);
      const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
      if (!file) continue;
      const out = join(ROOT, 'bench', `scan-cpu-profile-${j}.txt`);
      writeFileSync(out, `revision ${t.name.slice('scan '.length)}\n${summarizeCpuProfile(join(dir, file), 60)}`);
      console.log(`CPU profile of ${t.name}: ${out}`);
    }
  }

  const [bare, first] = targets.map((t) => median(t.figures));
  console.log(`\n=== median of ${ROUNDS} rounds: ${CALLGRIND ? 'instructions' : 'CPU µs'} per request ===`);
  for (const t of targets) {
    const m = median(t.figures);
    const vsFirst = t === targets[1] || t === targets[0] ? '' : `, ${(((m - first) / first) * 100).toFixed(1)} % against ${targets[1].name}`;
    console.log(`  ${t.name.padEnd(20)} ${CALLGRIND ? Math.round(m).toLocaleString('en-US') : m.toFixed(2)}  (${(m / bare).toFixed(2)} × bare${vsFirst})`);
  }
  if (!CALLGRIND) {
    const [loopBare, loopFirst] = targets.map((t) => median(t.loop));
    console.log(`=== the main thread alone (the event loop that answers): CPU µs per request, median of ${ROUNDS} rounds ===`);
    for (const t of targets) {
      const m = median(t.loop);
      const vsFirst = t === targets[1] || t === targets[0] ? '' : `, ${(((m - loopFirst) / loopFirst) * 100).toFixed(1)} % against ${targets[1].name}`;
      console.log(`  ${t.name.padEnd(20)} ${m.toFixed(2)}  (${(m / loopBare).toFixed(2)} × bare${vsFirst})`);
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
