/* `npm run bench:batch`: a batch of 1,000 styled dynamic codes (colours, dot and eye shapes, a logo) from POST
 * /v1/batches to `completed` (after an unmeasured warm-up batch; progress is polled from the batches row), with one
 * worker and with two; then its ZIP at 300 px and at 4,000 px, with the peak RSS
 * of the api and worker processes while it streams. The processes are compiled (tsc) and run as production runs them.
 * BENCH_BATCH_ITEMS (default 1000), BENCH_ZIP_4000_ITEMS (default: all) and BENCH_ZIP_4000_RUNS (default 3, the
 * median is printed) shorten a run. Prints figures only. */
import { createServer } from 'node:http';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import sharp from 'sharp';
import { loadConfig } from '../src/common/config/config';
import { ormConfig } from '../src/mikro-orm.config';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';
import { freePort, ROOT, startChild, stopChild } from './scan-load';
import { compileProcesses } from './scan-seed';

const ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 1000);
const ZIP_4000_ITEMS = Number(process.env.BENCH_ZIP_4000_ITEMS ?? ITEMS);
const ZIP_4000_RUNS = Number(process.env.BENCH_ZIP_4000_RUNS ?? 3);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => `load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`;

/** RSS of the processes a process started (the api's PNG renderer), summed. */
function childrenRssMb(pid: number | undefined): number {
  try {
    const tasks = readdirSync(`/proc/${pid}/task`);
    const kids = tasks.flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean));
    return kids.reduce((sum, k) => sum + (rssMb(Number(k)) || 0), 0);
  } catch {
    return 0;
  }
}

/** CPU seconds (user + system) a process has used so far, NaN once it is gone. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th (in USER_HZ, 100 a second).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The api's renderer children by pid (each recycled child keeps its last reading). */
function childPids(pid: number | undefined): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((t) => readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

function rssMb(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function main() {
  const config = loadConfig(process.env);
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const data = process.env.LOCAL_DATA_DIR ?? join(ROOT, '.local', `bench-${process.pid}`);
  const build = join(data, 'build');
  const t0 = Date.now();
  compileProcesses('worktree', build);
  console.log(`compiled the processes in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  const logo = await sharp({ create: { width: 256, height: 256, channels: 4, background: { r: 200, g: 30, b: 30, alpha: 1 } } }).png().toBuffer();
  const logoServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(logo));
  await new Promise<void>((r) => logoServer.listen(0, '127.0.0.1', r));
  const logoUrl = `http://127.0.0.1:${(logoServer.address() as { port: number }).port}/logo.png`;

  const plansFile = join(data, 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ agency: { requests_per_minute: 1_000_000 } }));
  const port = await freePort();
  const env = { ...process.env, NODE_ENV: 'production', PORT: String(port), LOGO_ALLOW_HOSTS: '127.0.0.1', PLANS_FILE: plansFile, LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv;
  env.APP_SECRET ??= 'bench-only-app-secret-0123456789';
  env.DASHBOARD_JWT_SECRET ??= 'bench-only-dashboard-secret-0123456789';
  const accounts = new AccountsService(orm.em.fork() as never, loadPlans(plansFile));
  const org = await accounts.createOrganization({ name: 'Bench', plan: 'agency', email: 'bench@example.com' });
  const { secret } = await accounts.createKey(org.id, { name: 'bench' });
  const api = await startChild([join(build, 'src', 'main.api.js')], env, 'api');
  const origin = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${origin}${path}`, { method, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, body: (await res.json()) as any };
  };
  const design = {
    colors: { foreground: '#1a237e', background: '#ffffff' },
    eye_colors: { frame: '#004d40', ball: '#b71c1c' },
    shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' },
    logo: { url: logoUrl },
  };
  const runBatch = (tag: string) => runBatchOf(ITEMS, tag);
  const runBatchOf = async (count: number, tag: string) => {
    const items = Array.from({ length: count }, (_, i) => ({ name: `${tag} ${i}`, target: { type: 'url', destination: `https://example.com/${tag}/${i}` } }));
    const start = Date.now();
    const res = await call('POST', '/v1/batches', { design, items });
    if (res.status !== 202) throw new Error(`POST /v1/batches answered ${res.status}: ${JSON.stringify(res.body)}`);
    // Progress is read from the batches row (3 columns) rather than GET /v1/batches/{id}, which would load and present
    // every one of the items on each poll and compete with the worker being measured.
    for (;;) {
      await sleep(100);
      const [b] = await orm.em.fork().getConnection().execute<{ status: string; completed_count: number; error_count: number }[]>(
        'select status, completed_count, error_count from batches where id = ?',
        [res.body.id],
      );
      if (b && b.status !== 'processing') {
        if (b.completed_count !== count) throw new Error(`batch ${b.status}: ${b.completed_count}/${count} completed, ${b.error_count} failed`);
        return { id: res.body.id as string, seconds: (Date.now() - start) / 1000 };
      }
    }
  };

  console.log(`\n=== batch of ${ITEMS} styled dynamic codes (logo, colours, dots, eye shapes) ===`);
  // Each worker serves health and metrics on a port of its own.
  const workers: ChildProcess[] = [await startChild([join(build, 'src', 'main.worker.js')], { ...env, WORKER_PORT: String(await freePort()) }, 'worker')];
  // Warm-up (not measured): the first batch pays for the processes' JIT, connection pools and the logo's first fetch.
  const warm = await runBatchOf(Math.min(50, ITEMS), 'warm-up');
  console.log(`  warm-up batch of ${Math.min(50, ITEMS)}: ${warm.seconds.toFixed(1)} s (not counted)`);
  const one: number[] = [];
  let lastId = '';
  for (let r = 0; r < 3; r++) {
    const run = await runBatch(`one-${r}`);
    one.push(run.seconds);
    lastId = run.id;
    console.log(`  one worker, run ${r + 1}: ${run.seconds.toFixed(1)} s (${(ITEMS / run.seconds).toFixed(0)} codes/s; ${load()})`);
  }
  workers.push(await startChild([join(build, 'src', 'main.worker.js')], { ...env, WORKER_PORT: String(await freePort()) }, 'worker 2'));
  const two: number[] = [];
  for (let r = 0; r < 3; r++) {
    const run = await runBatch(`two-${r}`);
    two.push(run.seconds);
    console.log(`  two workers, run ${r + 1}: ${run.seconds.toFixed(1)} s (${(ITEMS / run.seconds).toFixed(0)} codes/s; ${load()})`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`  median: one worker ${median(one).toFixed(1)} s (goal ≤ 10 s), two workers ${median(two).toFixed(1)} s`);
  await stopChild(workers.pop()!);

  const zip = async (batchId: string, query: string) => {
    const idle = { api: rssMb(api.pid), worker: rssMb(workers[0].pid) };
    const peak = { ...idle, renderer: 0 };
    // CPU of the api and of its renderer children while the ZIP streams: the work, which the load does not inflate.
    const apiCpu0 = cpuSeconds(api.pid);
    const rendererCpu = new Map<number, { first: number; last: number }>();
    const sampleRenderers = () => {
      for (const pid of childPids(api.pid)) {
        const now = cpuSeconds(pid);
        if (Number.isNaN(now)) continue;
        const seen = rendererCpu.get(pid);
        if (seen) seen.last = now;
        else rendererCpu.set(pid, { first: now, last: now });
      }
    };
    sampleRenderers();
    const running = new Set(rendererCpu.keys());
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak.api = Math.max(peak.api, rssMb(api.pid));
        peak.worker = Math.max(peak.worker, rssMb(workers[0].pid));
        peak.renderer = Math.max(peak.renderer, childrenRssMb(api.pid));
        sampleRenderers();
        await sleep(50);
      }
    })();
    const start = Date.now();
    const res = await fetch(`${origin}/v1/batches/${batchId}/download?${query}`, { headers: { authorization: `Bearer ${secret}` } });
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const seconds = (Date.now() - start) / 1000;
    sampling = false;
    await sampler;
    sampleRenderers();
    const apiCpu = cpuSeconds(api.pid) - apiCpu0;
    // A child that was running already counts from the start of the ZIP, one started during it from its own start.
    const childCpu = [...rendererCpu.entries()].reduce((sum, [pid, c]) => sum + c.last - (running.has(pid) ? c.first : 0), 0);
    console.log(
      `  ${query}: ${seconds.toFixed(1)} s, ${(bytes / 1e6).toFixed(1)} MB; RSS api ${idle.api.toFixed(0)} → peak ${peak.api.toFixed(0)} MB (+${(peak.api - idle.api).toFixed(0)}), ` +
        `worker ${idle.worker.toFixed(0)} → peak ${peak.worker.toFixed(0)} MB (+${(peak.worker - idle.worker).toFixed(0)}), ` +
        `the api's PNG renderer children peak ${peak.renderer.toFixed(0)} MB; CPU api ${apiCpu.toFixed(1)} s, renderer children ${childCpu.toFixed(1)} s (${load()})`,
    );
    return seconds;
  };
  console.log(`\n=== ZIP of the last one-worker batch (${ITEMS} PNGs) ===`);
  const z300: number[] = [];
  for (let r = 0; r < 3; r++) z300.push(await zip(lastId, 'format=png&size=300'));
  console.log(`  median at 300 px: ${median(z300).toFixed(1)} s (goal ≤ 15 s)`);
  let big = lastId;
  if (ZIP_4000_ITEMS !== ITEMS) {
    big = (await runBatchOf(ZIP_4000_ITEMS, 'big')).id;
  }
  console.log(`  ZIP of ${ZIP_4000_ITEMS} PNGs at 4,000 px:`);
  const z4000: number[] = [];
  for (let r = 0; r < ZIP_4000_RUNS; r++) z4000.push(await zip(big, 'format=png&size=4000'));
  console.log(`  median at 4,000 px (${z4000.length} runs): ${median(z4000).toFixed(1)} s${ZIP_4000_ITEMS === 1000 ? ' (goal ≤ 60 s for 1,000)' : ''}`);
  console.log('  (goal at 4,000 px: api RSS flat, under 300 MB over idle)');

  for (const w of workers) await stopChild(w);
  await stopChild(api);
  logoServer.close();
  await orm.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
