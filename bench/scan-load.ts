/**
 * Load generators and process helpers for bench:scan: autocannon (its programmatic API in a child process, a fixed
 * number of requests so every request sent is answered before it returns) and wrk (Debian's package, installed when
 * missing; a Lua script sets the user agent, optionally rotating through a list, and prints a JSON summary).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..');
export const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** One load run as every generator reports it. */
export interface Run {
  requests: number;
  seconds: number;
  /** 3xx answers (autocannon counts them exactly; wrk: completed requests, all 302 here). */
  redirects: number;
  errors: number;
  p50: number;
  p99: number;
  /** Server CPU (user + system) per request, µs: every thread of the process. */
  cpuUs: number;
  /** The same for the server's main thread alone (its event loop, which answers the requests), µs. */
  loopCpuUs: number;
  /** wrk with rotation: requests generated with a bot / a browser user agent. */
  botSent?: number;
  browserSent?: number;
}

export const rate = (r: Run) => r.requests / r.seconds;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts a Node child (under `wrapper`, e.g. valgrind, when given) and resolves once it prints a line containing
 * `ready`; its output is read and dropped after. */
export function startChild(args: string[], env: NodeJS.ProcessEnv, what: string, wrapper: string[] = []): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const command = [...wrapper, process.execPath, ...args];
    const child = spawn(command[0], command.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
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

export function stopChild(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** CPU time (user + system) a process (or with `mainThread`, its main thread alone) has used so far, in ms (Linux
 * /proc; NaN elsewhere). */
export function cpuMs(pid: number | undefined, mainThread = false): number {
  try {
    const fields = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** With a fixed number of requests, autocannon notices that the last one was answered only at its next one-second
 * tick, so its own start and finish (and any timer around it) round the run up to whole seconds. The child times the
 * run itself: from the call to the last answer, in µs. */
const AUTOCANNON = `
const autocannon = require('autocannon');
const started = process.hrtime.bigint();
let last = started;
const instance = autocannon(JSON.parse(process.env.LOAD), (err, r) => {
  if (err) { console.error(err); process.exit(1); }
  r.elapsedUs = Number((last - started) / 1000n);
  process.stdout.write(JSON.stringify(r));
});
instance.on('response', () => { last = process.hrtime.bigint(); });`;

interface AutocannonResult {
  elapsedUs: number;
  requests: { total: number };
  latency: { p50: number; p99: number };
  '3xx': number;
  errors: number;
  timeouts: number;
}

function child(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(args[0], args.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args[0]} exited with ${code}`))));
  });
}

/**
 * What every deployment sends a scan process from its first minute: a readiness probe and a metrics scrape (compose's
 * healthcheck, a load balancer, Prometheus). Asked once before a run, so that the process is measured as it runs in
 * production: Nest's routes have answered, and anything they turn on for good (Node's async hooks, for one:
 * docs/scan-host.md "Async hooks stay off") is on. Returns what was asked, for the run's log.
 */
export async function probeLikeADeployment(origin: string): Promise<string> {
  if (process.env.BENCH_PROBE === '0') return 'not probed (BENCH_PROBE=0)';
  const answers: string[] = [];
  for (const path of ['/health/ready', '/metrics']) {
    const res = await fetch(new URL(path, origin));
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    answers.push(`${path} ${res.status}`);
  }
  return `probed like a deployment: ${answers.join(', ')}`;
}

/** `amount` requests with one user agent: autocannon returns only once each was answered. */
export async function autocannon(url: string, amount: number, connections: number, server: ChildProcess): Promise<Run> {
  const options = { url, amount, connections, headers: { 'user-agent': IPHONE, 'accept-language': 'en-GB,en;q=0.9' } };
  const before = cpuMs(server.pid);
  const loopBefore = cpuMs(server.pid, true);
  const r = JSON.parse(
    await child([process.execPath, '-e', AUTOCANNON], { ...process.env, LOAD: JSON.stringify(options), NODE_PATH: join(ROOT, 'node_modules') }),
  ) as AutocannonResult;
  const seconds = r.elapsedUs / 1e6;
  return {
    requests: r.requests.total,
    seconds,
    redirects: r['3xx'],
    errors: r.errors + r.timeouts,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUs: ((cpuMs(server.pid) - before) * 1000) / r.requests.total,
    loopCpuUs: ((cpuMs(server.pid, true) - loopBefore) * 1000) / r.requests.total,
  };
}

/** wrk on PATH, else Debian's package (as root), else null. */
export function ensureWrk(): string | null {
  const found = () => spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).stdout.trim() || null;
  if (found()) return found();
  if (process.getuid?.() !== 0) return null;
  console.log('installing wrk from Debian (apt-get update; apt-get install -y wrk)…');
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (err) {
    console.log(`could not install wrk: ${(err as Error).message}`);
  }
  return found();
}

const lua = (s: string) => JSON.stringify(s); // a JSON string is a valid Lua string literal for these characters

/** The wrk script: fixed headers, or a rotation through `agents` (each thread starts at its own offset). */
export function wrkScript(file: string, agents: { ua: string; bot: boolean }[] | null): string {
  const head = `wrk.headers["Accept-Language"] = "en-GB,en;q=0.9"\n`;
  const rotation = agents
    ? `local uas = {${agents.map((a) => lua(a.ua)).join(',\n')}}
local bot = {${agents.map((a) => String(a.bot)).join(',')}}
local threads = {}
local n = 0
function setup(thread) n = n + 1; thread:set("id", n); table.insert(threads, thread) end
function init(args) i = id * 97; sent_bot = 0; sent_browser = 0 end
function request()
  i = i % #uas + 1
  if bot[i] then sent_bot = sent_bot + 1 else sent_browser = sent_browser + 1 end
  return wrk.format(nil, nil, { ["User-Agent"] = uas[i], ["Accept-Language"] = "en-GB,en;q=0.9" })
end
`
    : `wrk.headers["User-Agent"] = ${lua(IPHONE)}\nlocal threads = {}\nfunction setup(thread) table.insert(threads, thread) end\n`;
  const done = `
function done(summary, latency, requests)
  local b, w = 0, 0
  for _, t in ipairs(threads) do b = b + (t:get("sent_bot") or 0); w = w + (t:get("sent_browser") or 0) end
  local e = summary.errors
  io.write(string.format('WRK {"requests":%d,"us":%d,"p50":%d,"p99":%d,"errors":%d,"status":%d,"bot":%d,"browser":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status, b, w))
end
`;
  writeFileSync(file, head + rotation + done);
  return file;
}

/** wrk -t2 -c<connections> for `seconds`, with the script from wrkScript. */
export async function wrk(bin: string, url: string, script: string, seconds: number, connections: number, server: ChildProcess): Promise<Run> {
  const before = cpuMs(server.pid);
  const loopBefore = cpuMs(server.pid, true);
  const out = await child([bin, '-t2', `-c${connections}`, `-d${seconds}s`, '-s', script, url]);
  const line = out.split('\n').find((l) => l.startsWith('WRK '));
  if (!line) throw new Error(`wrk printed no summary: ${out}`);
  const r = JSON.parse(line.slice(4)) as Record<string, number>;
  return {
    requests: r.requests,
    seconds: r.us / 1e6,
    redirects: r.requests - r.status,
    errors: r.errors + r.status,
    p50: r.p50 / 1000,
    p99: r.p99 / 1000,
    cpuUs: ((cpuMs(server.pid) - before) * 1000) / r.requests,
    loopCpuUs: ((cpuMs(server.pid, true) - loopBefore) * 1000) / r.requests,
    botSent: r.bot,
    browserSent: r.browser,
  };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
