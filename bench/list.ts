/**
 * bench:list — GET /v1/qr-codes latency at BENCH_CODES codes in one workspace (default 100,000; the goal is stated at
 * BENCH_CODES=1000000): the first page against a deep cursor (90 % of the rows in), for several sorts. Goal: the deep
 * page costs what page 1 costs; p50 ≤ 10 ms. In the same run, GET /v1/qr-codes/{id} with the same key gives the floor
 * (what any authenticated request costs on this machine now), and each sort's page-1 and deep-page SQL is shown with
 * EXPLAIN (ANALYZE, BUFFERS). BENCH_LOCK=<file>: seed first, then take that lock file (flock(1)) and hold it only while
 * measuring, so that benchmarks taking turns on a shared machine do not wait through the seeding. BENCH_ROUNDS=<n>
 * (default 1) measures n times on the one seeded table and prints each sort's median of the rounds' p50s at the end.
 * Figures: docs/api.md ("List").
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiApp } from '../src/app/bootstrap';
import { loadConfig } from '../src/common/config/config';
import { CursorCodec, queryFingerprint } from '../src/common/http/cursor';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';
import { MikroORM } from '@mikro-orm/postgresql';
import { fmt, timeRequests } from './lib';

const TOTAL = Number(process.env.BENCH_CODES ?? 100_000);
const DEEP = Math.floor(TOTAL * 0.9);
const REQUESTS = 200;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Holds an exclusive flock(1) on `file` until the returned function is called (the child keeps it while its stdin is
 * open). */
async function holdLock(file: string): Promise<() => void> {
  const child = spawn('flock', [file, '-c', 'echo locked; exec cat > /dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`flock ${file} exited with ${code}`)));
  });
  return () => child.stdin.end();
}

async function main() {
  // The benchmark key must not be rate limited: agency with a very high per-minute limit.
  const plansFile = join(mkdtempSync(join(tmpdir(), 'bench-')), 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ agency: { requests_per_minute: 1_000_000 } }));
  const config = loadConfig({ ...process.env, PLANS_FILE: plansFile });
  const app = await createApiApp(config, { logLevel: 'silent' });
  await app.listen(0, '127.0.0.1');
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const orm = app.get(MikroORM);
  const em = orm.em.fork() as unknown as import('@mikro-orm/postgresql').EntityManager;
  const accounts = new AccountsService(em, loadPlans(plansFile));
  const org = await accounts.createOrganization({ name: 'Bench', plan: 'agency', email: 'bench@example.com' });
  const { secret } = await accounts.createKey(org.id, { name: 'bench' });

  const t0 = Date.now();
  // In steps of 100,000 rows, each in a transaction without the api's statement_timeout (a step takes longer than a
  // request may on a loaded machine).
  for (let from = 1; from <= TOTAL; from += 100_000) {
    await em.transactional(async (tx) => {
      await tx.execute('set local statement_timeout = 0');
      await tx.execute(
        `insert into qr_codes (id, organization_id, kind, name, type, short_code, target, design, environment, scan_count, created_at, updated_at)
         select 'qr_bench' || lpad(g::text, 12, '0'), ?, case when g % 5 = 0 then 'static' else 'dynamic' end,
                'Code ' || md5(g::text), 'url', 'b' || lpad(to_hex(g), 6, '0'),
                '{"destination":"https://example.com/","utm":null}'::jsonb, '{}'::jsonb, 'live', (g::bigint * 7919) % 1000,
                now() - (g || ' seconds')::interval, now() - ((g * 13) % 100000 || ' seconds')::interval
           from generate_series(?::int, ?::int) g`,
        [org.id, from, Math.min(TOTAL, from + 99_999)],
      );
    });
  }
  await em.execute('analyze qr_codes');
  console.log(`seeded ${TOTAL} codes in ${((Date.now() - t0) / 1000).toFixed(1)} s (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);

  const release = process.env.BENCH_LOCK ? await holdLock(process.env.BENCH_LOCK) : () => undefined;
  if (process.env.BENCH_LOCK) console.log(`holding ${process.env.BENCH_LOCK} from ${new Date().toISOString()} (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);

  const codec = new CursorCodec(config.appSecret);
  const headers = { authorization: `Bearer ${secret}` };
  const get = (path: string) => async () => {
    const res = await fetch(`${origin}${path}`, { headers });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };

  const rounds: Record<string, { first: number[]; deep: number[] }> = {};
  const floors: number[] = [];
  const plans: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`\n--- round ${round} of ${ROUNDS}`);
    // The floor: one code by id, same key, same process; taken before and after the list figures.
    const byId = get('/v1/qr-codes/qr_bench000000000001');
    await timeRequests(20, byId);
    const floorBefore = await timeRequests(REQUESTS, byId);
    floors.push(floorBefore.p50);
    console.log(`\nGET /v1/qr-codes/{id} (the floor), ${REQUESTS} sequential requests: p50 ${fmt(floorBefore.p50)}  p95 ${fmt(floorBefore.p95)}`);

    console.log(`\nGET /v1/qr-codes, limit 25, ${REQUESTS} sequential requests each (deep = cursor after ${DEEP} rows)`);
    console.log('sort                 page 1 p50   deep p50     ratio   page 1 p95   deep p95');
    for (const [sort, column, order] of [
      ['created_at', 'created_at', 'desc'],
      ['name', 'name', 'asc'],
      ['scan_count', 'scan_count', 'desc'],
      ['updated_at', 'updated_at', 'asc'],
    ] as const) {
      const [row] = await em.execute<Record<string, unknown>[]>(
        `select id, ${column} as v from qr_codes where organization_id = ? and status = 'live' order by ${column} ${order}, id ${order} offset ? limit 1`,
        [org.id, DEEP],
      );
      const v = row.v instanceof Date ? row.v.toISOString() : String(row.v);
      const fp = queryFingerprint({ organizationId: org.id, environment: 'live' }, { kind: 'all', status: 'all', sort, order, folder_id: undefined, search: undefined });
      const cursor = codec.encode({ v, id: String(row.id) }, fp);
      // The plan of the statement the list runs (qr-codes.list.ts: its WHERE, ORDER BY and LIMIT), page 1 and deep page.
      for (const [page, keyset] of round > 1 ? [] : ([['page 1', ''], ['deep', ` and (${column}, id) ${order === 'asc' ? '>' : '<'} (?, ?)`]] as const)) {
        const plan = await em.execute<{ 'QUERY PLAN': string }[]>(
          `explain (analyze, buffers, costs off) select id, name, target, design, tags from qr_codes
            where organization_id = ? and environment = 'live' and status = 'live'${keyset} order by ${column} ${order}, id ${order} limit 26`,
          keyset ? [org.id, row.v, row.id] : [org.id],
        );
        const lines = plan.map((p) => p['QUERY PLAN'].trim());
        const scan = lines.find((l) => l.includes(' Scan ')) ?? lines[0];
        const sortNode = lines.some((l) => /^(->\s*)?(Incremental )?Sort\b/.test(l)) ? 'a Sort node' : 'no Sort node';
        const filter = lines.find((l) => l.startsWith('Filter')) ?? 'no Filter';
        const exec = lines.find((l) => l.startsWith('Execution Time'));
        const buffers = lines.find((l) => l.startsWith('Buffers'));
        plans.push(`${`${sort} ${order}`.padEnd(20)} ${page.padEnd(7)} ${scan.replace(/^->\s*/, '').replace(/ \(actual.*$/, '')}; ${sortNode}; ${filter}; ${buffers}; ${exec}`);
      }
      const base = `/v1/qr-codes?limit=25&sort=${sort}&order=${order}`;
      await timeRequests(20, get(base));
      const first = await timeRequests(REQUESTS, get(base));
      const deep = await timeRequests(REQUESTS, get(`${base}&cursor=${encodeURIComponent(cursor)}`));
      rounds[`${sort} ${order}`] ??= { first: [], deep: [] };
      rounds[`${sort} ${order}`].first.push(first.p50);
      rounds[`${sort} ${order}`].deep.push(deep.p50);
      console.log(
        `${`${sort} ${order}`.padEnd(20)} ${fmt(first.p50).padStart(10)}   ${fmt(deep.p50).padStart(10)}   ${(deep.p50 / first.p50).toFixed(2).padStart(5)}x   ${fmt(first.p95).padStart(10)}   ${fmt(deep.p95).padStart(10)}`,
      );
    }
    const search = await timeRequests(REQUESTS, get('/v1/qr-codes?limit=25&search=abc'));
    console.log(`search=abc (trigram index)      p50 ${fmt(search.p50)}  p95 ${fmt(search.p95)}`);
    const floorAfter = await timeRequests(REQUESTS, byId);
    console.log(`GET /v1/qr-codes/{id} (the floor) again: p50 ${fmt(floorAfter.p50)}  p95 ${fmt(floorAfter.p95)}  (load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  }
  if (ROUNDS > 1) {
    console.log(`\nMedians of ${ROUNDS} rounds' p50: the floor ${fmt(median(floors))}`);
    for (const [sort, r] of Object.entries(rounds)) {
      console.log(`${sort.padEnd(20)} page 1 ${fmt(median(r.first)).padStart(10)}   deep ${fmt(median(r.deep)).padStart(10)}   ${(median(r.deep) / median(r.first)).toFixed(2)}x`);
    }
  }
  release();
  console.log('\nPlans (EXPLAIN ANALYZE, BUFFERS) of the list statement:');
  for (const line of plans) console.log(`  ${line}`);
  await app.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
