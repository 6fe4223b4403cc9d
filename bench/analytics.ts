/**
 * bench:analytics — scan ingestion throughput, analytics latency at 10 M scans, and the raw export's rate and memory.
 *  1. ingestion: BENCH_SCANS scans per run in two shapes (20 hot codes today; 1,000 codes over 30 days), written to the
 *     Redis stream as the scan host's flush writes them (compact entries of up to 500 scans, field `c`, each scan with a
 *     visitor value), consumed by one worker: the compiled worker process (`dist/src/main.worker.js`, as
 *     `npm run local` starts it), compiled from this tree with tsc into the bench's data directory. Three runs per
 *     shape, alternating; the figure is scans stored per second until the stream is drained; the median is printed.
 *     No webhook subscribes (the common case).
 *  2. analytics latency at 10 M scans, seeded with generate_series in SQL: one code with 10 M scans over 400 days (its
 *     rollups), and a workspace of 1,000 codes with 10 M raw scans over 400 days, its per-code and workspace rollups
 *     written as ingestion would have (hourly and daily counts, uniques, first/last scans agree with the raw scans;
 *     value rollups have 40 values per code and day whose counts add up to the day's). Each table is loaded in one
 *     transaction with its indexes built after the load. Each request is timed in 3 rounds; the median of the
 *     rounds' p50 is printed.
 *  3. export: about 1 M raw scans of the workspace streamed as NDJSON and CSV (3 rounds each): rows/s and the RSS of
 *     the process that runs the api (sampled every 50 ms).
 * BENCH_LOCK=<file> takes an exclusive flock on that file only while measuring (parts 1 and 2+3), not while compiling
 * or seeding, so that benchmarks of a shared machine never measure at once.
 * BENCH_INGESTION_ONLY=1 stops after part 1; BENCH_SKIP_INGESTION=1 skips it; BENCH_EXPORT_ONLY=1 (with BENCH_REUSE=1)
 * measures only part 3. BENCH_BIG_SCANS, BENCH_WORKSPACE_SCANS
 * and BENCH_REQUESTS change the sizes (defaults 10,000,000, 10,000,000 and 100). The database is the bench's own,
 * deleted when it ends (scripts/bench.js); about 9 GB of disk while it runs.
 * Seeding once, measuring several times: BENCH_PG_DIR=<dir> keeps the PostgreSQL cluster in <dir> (scripts/bench.js);
 * a run that finds its seed there (same sizes: the workspace's name is the fingerprint, given when seeding finished)
 * skips seeding. BENCH_SEED_ONLY=1 stops after seeding, so the seeding (~9 minutes) runs outside the bench lock:
 *   BENCH_PG_DIR=.local/bench-analytics BENCH_SKIP_INGESTION=1 BENCH_SEED_ONLY=1 npm run -s bench:analytics
 *   BENCH_PG_DIR=.local/bench-analytics BENCH_LOCK=<lock file> npm run -s bench:analytics   (three times)
 *   rm -rf .local/bench-analytics
 * The workspace's 1,000 codes are also in one folder, measured as a folder_id selection.
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { createApiApp } from '../src/app/bootstrap';
import { loadConfig } from '../src/common/config/config';
import { newId } from '../src/common/ids';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';
import { encodeScanBatch, SCAN_BATCH_MAX, SCAN_COMPACT_FIELD, SCAN_STREAM, type ScanRecord } from '../src/modules/scan/scan-contract';
import { fmt, percentile } from './lib';
import { freePort, startChild, stopChild } from './scan-load';
import { compileProcesses } from './scan-seed';

const SCANS = Number(process.env.BENCH_SCANS ?? 100_000);
const CODES = 1000;
/** Scans of the one big code, and of the workspace (over WS_CODES codes), spread over DAYS days. */
const BIG = Number(process.env.BENCH_BIG_SCANS ?? 10_000_000);
const WS_SCANS = Number(process.env.BENCH_WORKSPACE_SCANS ?? 10_000_000);
const WS_CODES = 1000;
const DAYS = 400;
/** Each latency is measured in ROUNDS rounds of REQUESTS sequential requests; the median of the rounds' p50 is reported. */
const ROUNDS = 3;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const ROUND_MS = 20_000;
/** A request slower than this ends its measurement (printed as such) instead of the bench. */
const REQUEST_TIMEOUT_MS = 60_000;

/** The few methods of pg's Client the seeding uses (pg ships no types; MikroORM's pool would spread the session
 * settings and the long statements over several connections). */
interface PgClient {
  connect(): Promise<void>;
  query<R>(sql: string): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('pg') as { Client: new (o: { connectionString: string }) => PgClient };

/** Ingestion runs per shape (alternating shapes); the median is printed. */
const INGESTION_RUNS = 3;

/**
 * Holds an exclusive flock on BENCH_LOCK (if set) until the returned function is called: a `flock` child that keeps
 * the lock while its stdin is open.
 */
async function benchLock(what: string): Promise<() => void> {
  const file = process.env.BENCH_LOCK;
  if (!file) return () => undefined;
  const t0 = Date.now();
  const child = spawn('flock', [file, 'sh', '-c', 'echo locked; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`flock ${file} exited with ${code}`)));
  });
  process.stdout.write(`(bench lock taken for ${what} after ${((Date.now() - t0) / 1000).toFixed(0)} s of waiting; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})\n`);
  return () => {
    child.stdin.end();
  };
}

const pick = <T>(xs: readonly T[], i: number): T => xs[i % xs.length];
const COUNTRIES = ['GB', 'US', 'DE', 'FR', 'ES', 'IT', 'NL', 'SE', null];
const CITIES = ['London', 'New York', 'Berlin', 'Paris', 'Madrid', 'Rome', 'Amsterdam', 'Stockholm', 'Leeds', null];
const DEVICES = ['Mobile', 'Mobile', 'Mobile', 'Tablet', 'Desktop'];
const OSES = ['iOS', 'Android', 'Windows', 'macOS', null];
const BROWSERS = ['Mobile Safari', 'Chrome', 'Samsung Browser', 'Firefox', 'Edge'];
const REFERRERS = [null, null, null, 'news.example.com', 'mail.google.com'];
const LANGUAGES = ['en', 'de', 'fr', 'es', 'it', null];

async function main() {
  const plansFile = join(mkdtempSync(join(tmpdir(), 'bench-')), 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ agency: { requests_per_minute: 1_000_000, dynamic_qr_limit: 1_000_000 } }));
  const config = loadConfig({ ...process.env, PLANS_FILE: plansFile });
  const api = await createApiApp(config, { logLevel: 'silent' });
  await api.listen(0, '127.0.0.1');
  const origin = (await api.getUrl()).replace('[::1]', '127.0.0.1');
  const em = () => api.get(MikroORM).em.fork() as unknown as EntityManager;
  const accounts = new AccountsService(em(), loadPlans(plansFile));
  // A database a previous run seeded with the same sizes (BENCH_PG_DIR keeps the cluster, or BENCH_REUSE=1 with a
  // DATABASE_URL): measure again without seeding. The seed's fingerprint is the workspace's name, given once seeding
  // has finished.
  const byName = async (name: string) =>
    (await em().execute<{ id: string }[]>(`select id from organizations where name = ? order by created_at limit 1`, [name]))[0] ?? null;
  const seededName = `Bench workspace (${BIG} + ${WS_SCANS} scans over ${DAYS} days)`;
  const reuse = (process.env.BENCH_REUSE === '1' || !!process.env.BENCH_PG_DIR) && (await byName(seededName)) !== null;
  const existing = async (name: string) => (reuse ? byName(name) : null);
  if (!reuse && (await byName('Bench')) !== null) throw new Error('the database holds an unfinished or different bench seed: delete BENCH_PG_DIR (or use a fresh DATABASE_URL)');
  const reusedOrg = await existing('Bench');
  if (reuse) process.stdout.write(`reusing the seeded database (${seededName})\n`);
  const org = reusedOrg ?? (await accounts.createOrganization({ name: 'Bench', plan: 'agency', email: 'bench@example.com' }));
  const { secret } = await accounts.createKey(org.id, { name: 'bench' });
  if (!reuse) await em().execute(
    `insert into qr_codes (id, organization_id, kind, name, type, short_code, target, design, environment, created_at, updated_at)
     select 'qr_bench' || lpad(g::text, 12, '0'), ?, 'dynamic', 'Code ' || g, 'url', 'b' || lpad(to_hex(g), 6, '0'),
            '{"destination":"https://example.com/","utm":null}'::jsonb, '{}'::jsonb, 'live', now() - interval '400 days', now()
       from generate_series(1, ?) g`,
    [org.id, CODES + 2],
  );
  const codeId = (g: number) => `qr_bench${String(g).padStart(12, '0')}`;

  // 1. Ingestion throughput, in two shapes: live traffic (20 hot codes, today) and the worst case (every scan of an
  // entry in a different code/day: 1,000 codes over 30 days, so each entry upserts ~500 day rows and ~3,500 value rows).
  const redis = new Redis(config.redisUrl);
  const ingest = async (codes: number, days: number, run: number) => {
    const now = Date.now();
    const entries: string[] = [];
    for (let i = 0; i < SCANS; i += SCAN_BATCH_MAX) {
      const batch: ScanRecord[] = [];
      for (let j = i; j < Math.min(SCANS, i + SCAN_BATCH_MAX); j++) {
        batch.push({
          id: newId('scan'),
          qr_code_id: codeId(1 + (j % codes)),
          organization_id: org.id,
          scanned_at: new Date(now - (j % days) * 86_400_000 - (j % 3600) * 1000).toISOString(),
          country: pick(COUNTRIES, j),
          city: pick(CITIES, j * 7),
          device: pick(DEVICES, j * 3),
          os: pick(OSES, j * 11),
          browser: pick(BROWSERS, j * 13),
          referrer: pick(REFERRERS, j * 17),
          language: pick(LANGUAGES, j * 19),
          // The daily-salted visitor value the scan host adds (22 base64url characters): about 4 scans per visitor.
          visitor: `v${run}${(j % Math.ceil(SCANS / 4)).toString(36).padStart(20, '0')}`,
        });
      }
      entries.push(encodeScanBatch(batch));
    }
    // Progress is read from the codes' scan_count (updated in the same transaction as the scans, about a thousand rows
    // by index): counting the scans table every 50 ms would scan it whole and compete with the worker for PostgreSQL.
    const stored = async () =>
      Number((await em().execute<{ n: string | null }[]>(`select sum(scan_count) as n from qr_codes where organization_id = ?`, [org.id]))[0].n ?? 0);
    const before = await stored();
    const t0 = Date.now();
    const pipe = redis.pipeline();
    for (const b of entries) pipe.xadd(SCAN_STREAM, '*', SCAN_COMPACT_FIELD, b);
    await pipe.exec();
    for (;;) {
      if ((await stored()) - before >= SCANS && (await redis.xlen(SCAN_STREAM)) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    return (SCANS * 1000) / (Date.now() - t0);
  };
  const skipIngestion = process.env.BENCH_SKIP_INGESTION === '1';
  const ingestion: string[] = [];
  if (skipIngestion) ingestion.push('  (skipped: BENCH_SKIP_INGESTION=1)');
  else {
    // The worker as production runs it: compiled with tsc, its own process, its defaults (NODE_ENV production).
    const build = join(process.env.LOCAL_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'bench-')), 'build');
    const c0 = Date.now();
    compileProcesses('worktree', build);
    process.stdout.write(`compiled the processes in ${((Date.now() - c0) / 1000).toFixed(1)} s\n`);
    const workerEnv = { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn', WORKER_PORT: String(await freePort()) } as NodeJS.ProcessEnv;
    const worker = await startChild([join(build, 'src', 'main.worker.js')], workerEnv, 'worker');
    const unlock = await benchLock('ingestion');
    const shapes = [
      { label: 'live traffic (20 codes, today)', codes: 20, days: 1, rates: [] as number[] },
      { label: 'worst case (1,000 codes × 30 days)', codes: CODES, days: 30, rates: [] as number[] },
    ];
    for (let run = 0; run < INGESTION_RUNS; run++) for (const shape of shapes) shape.rates.push(await ingest(shape.codes, shape.days, run));
    unlock();
    await stopChild(worker);
    const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    for (const shape of shapes) {
      ingestion.push(`  ${shape.label.padEnd(44)} ${SCANS} scans a run: ${shape.rates.map((r) => Math.round(r)).join(' / ')} → median ${Math.round(med(shape.rates))} scans/s`);
    }
  }
  const [check] = await em().execute<{ n: string }[]>(`select sum(scan_count) as n from qr_codes where organization_id = ?`, [org.id]);
  const ingestionLines = [
    `bench:analytics (${loadavg().map((x) => x.toFixed(1)).join(' ')} load average at the end of ingestion)`,
    `ingestion (one compiled worker process, compact stream entries of ${SCAN_BATCH_MAX} scans, no webhooks; scan_count sum afterwards ${check.n}):`,
    ...ingestion,
  ];
  if (process.env.BENCH_INGESTION_ONLY === '1') {
    process.stdout.write(`${ingestionLines.join('\n')}\n`);
    redis.disconnect();
    await api.close();
    return;
  }

  // 2. Reads at 10 M scans, seeded with generate_series in SQL on a dedicated connection:
  //  - one code with BIG scans over DAYS days: rollups only (scan_hours for every hour, scan_days summed from them,
  //    ~320 dimension values a day), which is all an unfiltered request reads;
  //  - a workspace of WS_CODES codes with WS_SCANS raw scans over DAYS days (the raw table at that size: exports and
  //    filters read it) and its rollups as ingestion would have written them: every (code, hour) of the DAYS days has
  //    WS_SCANS / (codes × hours) scans (the remainder spread over pairs by a fixed permutation), the first of each
  //    pair being its visitor's unique scan; scan_hours, scan_days and the workspace rollups hold exactly those
  //    scans' counts, uniques and first/last times; the value rollups have 40 values per code and day whose counts add
  //    up to the day's (their names are not the raw scans' values: filters, read from raw scans, see other values).
  // Each table is loaded in one transaction: its primary key and indexes dropped, the rows inserted in key order,
  // the indexes built again (as a restore does; several times faster than maintaining them row by row).
  const pg = new Client({ connectionString: config.databaseUrl });
  await pg.connect();
  await pg.query(`set maintenance_work_mem = '512MB'; set work_mem = '64MB'`);
  const seedLog: string[] = [];
  const step = async (label: string, sql: string | string[]) => {
    if (reuse) return;
    const t = Date.now();
    for (const q of Array.isArray(sql) ? sql : [sql]) await pg.query(q);
    seedLog.push(`  ${label.padEnd(58)} ${((Date.now() - t) / 1000).toFixed(1)} s`);
  };
  /** Loads `table` with `insert` in one transaction, its indexes (primary key included) and foreign keys dropped first
   * and built after (one index build and one join per foreign key instead of an entry and a check per row). */
  const load = async (label: string, table: string, insert: string) => {
    if (reuse) return;
    const indexes = (
      await pg.query<{ name: string; def: string; con: string | null; condef: string | null }>(
        `select i.relname as name, pg_get_indexdef(i.oid) as def, c.conname as con, pg_get_constraintdef(c.oid) as condef
           from pg_index x join pg_class i on i.oid = x.indexrelid
           left join pg_constraint c on c.conindid = x.indexrelid and c.conrelid = x.indrelid and c.contype in ('p', 'u')
          where x.indrelid = '${table}'::regclass`,
      )
    ).rows;
    const fks = (
      await pg.query<{ con: string; condef: string }>(
        `select conname as con, pg_get_constraintdef(oid) as condef from pg_constraint where conrelid = '${table}'::regclass and contype = 'f'`,
      )
    ).rows;
    const drop = [
      ...fks.map((f) => `alter table ${table} drop constraint ${f.con};`),
      ...indexes.map((i) => (i.con ? `alter table ${table} drop constraint ${i.con};` : `drop index ${i.name};`)),
    ].join(' ');
    const build = [
      ...indexes.map((i) => (i.con ? `alter table ${table} add constraint ${i.con} ${i.condef};` : `${i.def};`)),
      ...fks.map((f) => `alter table ${table} add constraint ${f.con} ${f.condef};`),
    ];
    const t = Date.now();
    await pg.query('begin');
    await pg.query(drop);
    await pg.query(insert);
    const loaded = Date.now();
    for (const q of build) await pg.query(q);
    await pg.query('commit');
    seedLog.push(`  ${label.padEnd(58)} ${((loaded - t) / 1000).toFixed(1)} s + ${indexes.length} index(es), ${fks.length} foreign key(s) ${((Date.now() - loaded) / 1000).toFixed(1)} s`);
  };
  const s0 = Date.now();
  const big = codeId(CODES + 2);
  const lit = (v: string) => `'${v.replace(/'/g, "''")}'`;

  // The one big code: one scan_hours row per hour of DAYS days, ~BIG scans in all.
  const perHour = Math.round(BIG / (DAYS * 24));
  await step(
    `big code: scan_hours (${DAYS * 24} rows, ${BIG.toLocaleString('en')} scans)`,
    `insert into scan_hours (qr_code_id, hour, count, uniques, expired, first_at, last_at)
     select ${lit(big)}, h.t, h.n, h.n * 4 / 5, h.n / 100, h.t, h.t + interval '59 minutes'
       from (select date_trunc('hour', now()) - (i || ' hours')::interval as t, ${perHour} + (i * 37) % 101 - 50 as n
               from generate_series(0, ${DAYS * 24 - 1}) i) h`,
  );
  await step(
    'big code: scan_days from scan_hours',
    `insert into scan_days (qr_code_id, day, count, uniques, first_at, last_at)
     select qr_code_id, (hour at time zone 'UTC')::date, sum(count), sum(uniques), min(first_at), max(last_at)
       from scan_hours where qr_code_id = ${lit(big)} group by 1, 2`,
  );
  // Value rollups: n values per dimension and day whose counts add up to the day's count.
  const values = (where: string, dims: [string, string, number][]) => `
     insert into scan_day_values (qr_code_id, dimension, day, value, count)
     select d.qr_code_id, x.dimension, d.day, x.prefix || v, d.count / x.n + case when v <= d.count % x.n then 1 else 0 end
       from (values ${dims.map(([dim, prefix, n]) => `('${dim}', '${prefix}', ${n})`).join(', ')}) x(dimension, prefix, n)
      cross join lateral generate_series(1, x.n) v
      cross join scan_days d
      where v <= d.count and ${where}`;
  await step(
    'big code: scan_day_values (318 values a day)',
    values(`d.qr_code_id = ${lit(big)}`, [
      ['country', 'C', 50], ['city', 'City ', 200], ['device', 'D', 4], ['os', 'O', 6], ['browser', 'B', 8], ['referrer', 'r', 30], ['language', 'l', 20],
    ]),
  );
  await step(
    'big code: scan_value_totals, scan_count',
    `insert into scan_value_totals (qr_code_id, dimension, value, count)
     select qr_code_id, dimension, value, sum(count) from scan_day_values where qr_code_id = ${lit(big)} group by 1, 2, 3;
     update qr_codes set scan_count = (select sum(count) from scan_days where qr_code_id = ${lit(big)}) where id = ${lit(big)}`,
  );

  // The workspace: WS_CODES codes; pair p = hour index × WS_CODES + code index has n(p) scans at the hour's second
  // p % 1800, then 1800 s apart.
  const ws = (await existing(seededName)) ?? (await accounts.createOrganization({ name: 'Bench workspace (seeding)', plan: 'agency', email: 'bench-ws@example.com' }));
  const { secret: wsSecret } = await accounts.createKey(ws.id, { name: 'bench' });
  await step(
    `workspace: ${WS_CODES} codes`,
    `insert into qr_codes (id, organization_id, kind, name, type, short_code, target, design, environment, created_at, updated_at)
     select 'qr_ws' || lpad(g::text, 12, '0'), ${lit(ws.id)}, 'dynamic', 'Campaign ' || g, 'url', 'w' || lpad(to_hex(g), 6, '0'),
            '{"destination":"https://example.com/","utm":null}'::jsonb, '{}'::jsonb, 'live', now() - interval '${DAYS} days', now()
       from generate_series(1, ${WS_CODES}) g`,
  );
  // A folder holding every code of the workspace: the selection a campaign view asks for (per-code rollups).
  const folderId = 'fld_benchcampaign';
  await step(`workspace: a folder of its ${WS_CODES} codes`, [
    `insert into folders (id, organization_id, name, environment) values (${lit(folderId)}, ${lit(ws.id)}, 'Campaign', 'live')`,
    `update qr_codes set folder_id = ${lit(folderId)} where organization_id = ${lit(ws.id)}`,
  ]);
  const pairs = WS_CODES * DAYS * 24;
  const perPair = Math.floor(WS_SCANS / pairs);
  const extra = WS_SCANS - perPair * pairs;
  const [{ t0 }] = (await pg.query<{ t0: string }>(`select to_char(date_trunc('hour', now()) - interval '${DAYS * 24} hours', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as t0`)).rows;
  const pairRows = `(select p, 'qr_ws' || lpad((1 + p % ${WS_CODES})::text, 12, '0') as code,
                            timestamptz ${lit(t0)} + (p / ${WS_CODES}) * interval '1 hour' as hour, p % 1800 as sec,
                            ${perPair} + case when (p * 7919) % ${pairs} < ${extra} then 1 else 0 end as n
                       from generate_series(0::bigint, ${pairs - 1}) p) g`;
  const pickSql = (xs: (string | null)[], mul: number) => `(array[${xs.map((x) => (x === null ? 'null' : lit(x))).join(', ')}]::text[])[1 + ((g.p + k) * ${mul}) % ${xs.length}]`;
  await load(
    `workspace: ${WS_SCANS.toLocaleString('en')} raw scans over ${DAYS} days`,
    'scans',
    `insert into scans (id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language, visit_unique, expired)
     select 'scan_ws' || lpad((g.p * ${perPair + 1} + k)::text, 11, '0'), ${lit(ws.id)}, g.code,
            g.hour + (g.sec + (k - 1) * 1800) * interval '1 second',
            ${pickSql(COUNTRIES, 7)}, ${pickSql(CITIES, 11)}, ${pickSql(DEVICES, 3)}, ${pickSql(OSES, 13)}, ${pickSql(BROWSERS, 17)},
            ${pickSql(REFERRERS, 19)}, ${pickSql(LANGUAGES, 23)}, k = 1, false
       from ${pairRows} cross join generate_series(1, ${perPair + 1}) k where k <= g.n`,
  );
  await load(
    'workspace: scan_hours',
    'scan_hours',
    `insert into scan_hours (qr_code_id, hour, count, uniques, expired, first_at, last_at)
     select g.code, g.hour, g.n, 1, 0, g.hour + g.sec * interval '1 second', g.hour + (g.sec + (g.n - 1) * 1800) * interval '1 second'
       from ${pairRows} where g.n > 0`,
  );
  await load(
    'workspace: scan_days from scan_hours',
    'scan_days',
    `insert into scan_days (qr_code_id, day, count, uniques, first_at, last_at)
     select qr_code_id, (hour at time zone 'UTC')::date, sum(count), sum(uniques), min(first_at), max(last_at)
       from scan_hours where qr_code_id like 'qr\\_ws%' group by 1, 2`,
  );
  await load(
    'workspace: scan_day_values (40 values per code and day)',
    'scan_day_values',
    values(`d.qr_code_id like 'qr\\_ws%'`, [
      ['country', 'C', 8], ['city', 'City ', 10], ['device', 'D', 3], ['os', 'O', 5], ['browser', 'B', 5], ['referrer', 'r', 3], ['language', 'l', 6],
    ]),
  );
  await load(
    'workspace: scan_value_totals',
    'scan_value_totals',
    `insert into scan_value_totals (qr_code_id, dimension, value, count)
     select qr_code_id, dimension, value, sum(count) from scan_day_values where qr_code_id like 'qr\\_ws%' group by 1, 2, 3`,
  );
  await step(
    'workspace: scan_count',
    `update qr_codes q set scan_count = d.n from (select qr_code_id, sum(count) as n from scan_days where qr_code_id like 'qr\\_ws%' group by 1) d where q.id = d.qr_code_id`,
  );
  // The workspace rollups of both organizations, summed from their per-code rollups (as the migration fills them).
  const owners = `(${lit(org.id)}, ${lit(ws.id)})`;
  for (const [orgTable, table, keys, sums] of [
    ['scan_org_days', 'scan_days', 'day', ['count', 'uniques']],
    ['scan_org_hours', 'scan_hours', 'hour', ['count', 'uniques', 'expired']],
    ['scan_org_day_values', 'scan_day_values', 'dimension, day, value', ['count']],
    ['scan_org_value_totals', 'scan_value_totals', 'dimension, value', ['count']],
  ] as const) {
    await step(`workspace rollups: ${orgTable}`, [
      `delete from ${orgTable} where organization_id in ${owners}`,
      `insert into ${orgTable} (organization_id, environment, ${keys}, ${sums.join(', ')})
       select q.organization_id, q.environment, ${keys.split(', ').map((k) => `r.${k}`).join(', ')}, ${sums.map((c) => `sum(r.${c})`).join(', ')}
         from ${table} r join qr_codes q on q.id = r.qr_code_id where q.organization_id in ${owners}
        group by q.organization_id, q.environment, ${keys.split(', ').map((k) => `r.${k}`).join(', ')}`,
    ]);
  }
  const tables = ['scans', 'scan_hours', 'scan_days', 'scan_day_values', 'scan_value_totals', 'scan_org_days', 'scan_org_hours', 'scan_org_day_values', 'scan_org_value_totals'];
  await step('vacuum analyze', [...tables, 'qr_codes'].map((t) => `vacuum analyze ${t}`));
  await step('seed fingerprint', `update organizations set name = ${lit(seededName)} where id = ${lit(ws.id)}`);
  const seedMs = Date.now() - s0;
  const sizes = (
    await pg.query<{ t: string; n: string; size: string }>(
      `select t, (select reltuples::bigint from pg_class where relname = t)::text as n, pg_size_pretty(pg_total_relation_size(t::regclass)) as size
         from unnest(array[${tables.map(lit).join(', ')}]) t`,
    )
  ).rows;
  await pg.end();

  const lines = [
    ...ingestionLines,
    `seeding (${(seedMs / 1000).toFixed(0)} s; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}):`,
    ...seedLog,
    `  table sizes: ${sizes.map((r) => `${r.t} ${Number(r.n).toLocaleString('en')} rows ${r.size}`).join('; ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  lines.length = 0;
  if (process.env.BENCH_SEED_ONLY === '1') {
    redis.disconnect();
    await api.close();
    return;
  }

  const get = (key: string, path: string) => async () => {
    const res = await fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const measure = async (label: string, key: string, path: string, n = REQUESTS) => {
    try {
      for (let i = 0; i < 2; i++) await get(key, path)(); // warm-up
    } catch (err) {
      if ((err as Error).name !== 'TimeoutError') throw err;
      process.stdout.write(`  ${label.padEnd(60)} no answer within ${REQUEST_TIMEOUT_MS / 1000} s (not measured further)\n`);
      // The api's statement goes on after the client gave up: cancel it so it does not weigh on what follows.
      const admin = new Client({ connectionString: config.databaseUrl });
      await admin.connect();
      await admin.query(`select pg_cancel_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and state = 'active' and query like 'with p as materialized%'`);
      await admin.end();
      return;
    }
    const p50s: number[] = [];
    const p95s: number[] = [];
    let sent = 0;
    for (let r = 0; r < ROUNDS; r++) {
      // A round is n requests, or fewer when they take more than ROUND_MS in all (slow cases on a loaded machine).
      const times: number[] = [];
      const end = Date.now() + ROUND_MS;
      while (times.length < n && (times.length < 3 || Date.now() < end)) {
        const t0 = process.hrtime.bigint();
        await get(key, path)();
        times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      times.sort((a, b) => a - b);
      sent += times.length;
      p50s.push(percentile(times, 50));
      p95s.push(percentile(times, 95));
    }
    const line = `  ${label.padEnd(60)} p50 ${fmt(median(p50s)).padEnd(10)} (rounds ${p50s.map(fmt).join(' / ')}; p95 median ${fmt(median(p95s))}; ${sent} requests)`;
    process.stdout.write(`${line}\n`);
  };

  const unlock = await benchLock('reads and export');
  if (process.env.BENCH_EXPORT_ONLY !== '1') {
  process.stdout.write(`analytics latency (${ROUNDS} rounds of ${REQUESTS} sequential requests, or at least 3 in ${ROUND_MS / 1000} s; median of the rounds' p50):\n`);
  const bigPath = `/v1/qr-codes/${big}/analytics`;
  // What any authenticated request costs on this machine at this load (key check, one primary-key read, JSON): the
  // floor under every figure below.
  await measure('baseline: GET /v1/qr-codes/{id} (no analytics)', secret, `/v1/qr-codes/${big}`);
  await measure(`code, ${BIG.toLocaleString('en')} scans: all time (default)`, secret, bigPath);
  await measure('code: last 30 days', secret, `${bigPath}?from=${day(29)}&to=${day(0)}`);
  await measure('code: hourly series of a day (yesterday, interval=hour)', secret, `${bigPath}?from=${day(1)}&to=${day(1)}&interval=hour`);
  await measure('code: last 30 days, timezone=America/New_York', secret, `${bigPath}?from=${day(29)}&to=${day(0)}&timezone=America/New_York`);
  await measure(`workspace, ${WS_CODES} codes, ${WS_SCANS.toLocaleString('en')} scans: all time (default)`, wsSecret, `/v1/analytics`);
  await measure('workspace: last 30 days', wsSecret, `/v1/analytics?from=${day(29)}&to=${day(0)}`);
  await measure('workspace: last 30 days, timezone=Europe/Paris', wsSecret, `/v1/analytics?from=${day(29)}&to=${day(0)}&timezone=Europe/Paris`);
  await measure(`workspace: folder of ${WS_CODES} codes (folder_id), all time`, wsSecret, `/v1/analytics?folder_id=${folderId}`);
  await measure('workspace: folder, last 30 days', wsSecret, `/v1/analytics?folder_id=${folderId}&from=${day(29)}&to=${day(0)}`);
  await measure('workspace: last 7 days, country=FR (raw scans)', wsSecret, `/v1/analytics?from=${day(6)}&to=${day(0)}&country=FR`, 10);
  }

  // 3. Export: every scan of the workspace's last EXPORT_DAYS days (≈ 1 M), streamed; the api runs in this process,
  // so its RSS is sampled here every 50 ms.
  const exportDays = Math.min(365, Math.round((1_000_000 * DAYS) / WS_SCANS));
  const exportPath = (format: string) => `/v1/scans?format=${format}&from=${day(exportDays)}&to=${day(1)}`;
  process.stdout.write(`export (${exportDays} days of the workspace, streamed; rows/s; RSS of the process running the api, MB):\n`);
  for (const format of ['ndjson', 'csv']) {
    const rates: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      global.gc?.();
      const rss0 = process.memoryUsage().rss;
      let peak = rss0;
      const samples: number[] = [];
      const timer = setInterval(() => {
        const rss = process.memoryUsage().rss;
        peak = Math.max(peak, rss);
        samples.push(rss);
      }, 50);
      const t0 = Date.now();
      const res = await fetch(`${origin}${exportPath(format)}`, { headers: { authorization: `Bearer ${wsSecret}` }, signal: AbortSignal.timeout(600_000) });
      if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status} ${await res.text()}`);
      let newlines = 0;
      // Counted with indexOf (memchr): the client shares the api's process and event loop, so it must cost little.
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) newlines++;
      }
      const ms = Date.now() - t0;
      clearInterval(timer);
      const rows = format === 'csv' ? newlines - 1 : newlines;
      rates.push((rows * 1000) / ms);
      const mb = (b: number) => (b / 1048576).toFixed(0);
      const q = (f: number) => mb(samples[Math.min(samples.length - 1, Math.floor(samples.length * f))] ?? rss0);
      process.stdout.write(
        `  ${format.padEnd(7)} round ${r + 1}: ${rows.toLocaleString('en')} rows in ${ms} ms → ${Math.round((rows * 1000) / ms).toLocaleString('en')} rows/s; ` +
          `RSS before ${mb(rss0)}, at 25/50/75 % ${q(0.25)}/${q(0.5)}/${q(0.75)}, peak ${mb(peak)}, after ${mb(process.memoryUsage().rss)}\n`,
      );
    }
    process.stdout.write(`  ${format.padEnd(7)} median ${Math.round(median(rates)).toLocaleString('en')} rows/s\n`);
  }
  process.stdout.write(`load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')}\n`);
  unlock();
  redis.disconnect();
  await api.close();
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
