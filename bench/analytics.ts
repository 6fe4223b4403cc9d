/**
 * bench:analytics — scan ingestion throughput, analytics latency at 10 M scans, and the raw export's rate and memory.
 *  1. ingestion: BENCH_SCANS scans (twice: 20 hot codes today, then 1,000 codes over 30 days) are written to the Redis stream as entries of 500 (what the scan
 *     host's flush writes), while one in-process worker (the real WorkerModule) consumes them; the figure is scans
 *     stored per second until the stream is drained. No webhook subscribes (the common case).
 *  2. analytics latency at 10 M scans, seeded with generate_series in SQL (a few minutes): one code with 10 M scans
 *     over 400 days (its rollups), and a workspace of 1,000 codes with 10 M raw scans over 400 days (and their
 *     rollups). Each request is timed in 3 rounds; the median of the rounds' p50 is printed.
 *  3. export: about 1 M raw scans of the workspace streamed as NDJSON and CSV (3 rounds each): rows/s and the RSS of
 *     the process that runs the api (sampled every 50 ms).
 * BENCH_INGESTION_ONLY=1 stops after part 1; BENCH_SKIP_INGESTION=1 skips it; BENCH_EXPORT_ONLY=1 (with BENCH_REUSE=1)
 * measures only part 3. BENCH_BIG_SCANS, BENCH_WORKSPACE_SCANS
 * and BENCH_REQUESTS change the sizes (defaults 10,000,000, 10,000,000 and 100). The database is the bench's own,
 * deleted when it ends (scripts/bench.js); about 5 GB of disk while it runs.
 */
import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { createApiApp, createWorkerApp } from '../src/app/bootstrap';
import { loadConfig } from '../src/common/config/config';
import { newId } from '../src/common/ids';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';
import { SCAN_BATCH_MAX, SCAN_STREAM, type ScanRecord } from '../src/modules/scan/scan-contract';
import { fmt, percentile } from './lib';

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
  // BENCH_REUSE=1 with a DATABASE_URL a previous run seeded: measure again without seeding (or ingesting).
  const existing = async (name: string) =>
    process.env.BENCH_REUSE === '1'
      ? ((await em().execute<{ id: string }[]>(`select id from organizations where name = ? order by created_at limit 1`, [name]))[0] ?? null)
      : null;
  const reusedOrg = await existing('Bench');
  const reuse = reusedOrg !== null;
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
  const worker = await createWorkerApp(config, { logLevel: 'silent' });
  const redis = new Redis(config.redisUrl);
  const ingest = async (label: string, codes: number, days: number) => {
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
        });
      }
      entries.push(JSON.stringify(batch));
    }
    // Progress is read from the codes' scan_count (updated in the same transaction as the scans, about a thousand rows
    // by index): counting the scans table every 50 ms would scan it whole and compete with the worker for PostgreSQL.
    const stored = async () =>
      Number((await em().execute<{ n: string | null }[]>(`select sum(scan_count) as n from qr_codes where organization_id = ?`, [org.id]))[0].n ?? 0);
    const before = await stored();
    const t0 = Date.now();
    const pipe = redis.pipeline();
    for (const b of entries) pipe.xadd(SCAN_STREAM, '*', 'b', b);
    await pipe.exec();
    for (;;) {
      if ((await stored()) - before >= SCANS && (await redis.xlen(SCAN_STREAM)) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const ms = Date.now() - t0;
    return `  ${label.padEnd(44)} ${SCANS} scans in ${ms} ms → ${Math.round((SCANS * 1000) / ms)} scans/s`;
  };
  const skipIngestion = reuse || process.env.BENCH_SKIP_INGESTION === '1';
  const ingestion = skipIngestion
    ? ['  (skipped: BENCH_SKIP_INGESTION=1)']
    : [await ingest('live traffic (20 codes, today)', 20, 1), await ingest('worst case (1,000 codes × 30 days)', CODES, 30)];
  const [check] = await em().execute<{ n: string }[]>(`select sum(scan_count) as n from qr_codes where organization_id = ?`, [org.id]);
  await worker.close();
  const ingestionLines = [
    `bench:analytics (${loadavg().map((x) => x.toFixed(1)).join(' ')} load average at the end of ingestion)`,
    `ingestion (one worker, stream entries of ${SCAN_BATCH_MAX} scans, no webhooks; scan_count sum afterwards ${check.n}):`,
    ...ingestion,
  ];
  if (process.env.BENCH_INGESTION_ONLY === '1') {
    process.stdout.write(`${ingestionLines.join('\n')}\n`);
    redis.disconnect();
    await api.close();
    return;
  }

  // 2. Reads at 10 M scans. Seeded with generate_series in SQL (minutes, not hours), on a dedicated connection:
  //  - one code with BIG scans over DAYS days: rollups only (scan_hours for every hour, scan_days summed from them,
  //    ~320 dimension values a day), which is all an unfiltered request reads;
  //  - a workspace of WS_CODES codes with WS_SCANS raw scans over DAYS days (the raw table at that size: exports and
  //    filters read it), its hourly and daily rollups aggregated from those raw scans, its value rollups shaped as
  //    ingestion writes them (40 values per code and day, counts adding up to the day's).
  const pg = new Client({ connectionString: config.databaseUrl });
  await pg.connect();
  await pg.query(`set maintenance_work_mem = '512MB'; set work_mem = '64MB'`);
  const step = async (label: string, sql: string | string[]) => {
    if (reuse) return;
    const t = Date.now();
    for (const q of Array.isArray(sql) ? sql : [sql]) await pg.query(q);
    seedLog.push(`  ${label.padEnd(58)} ${((Date.now() - t) / 1000).toFixed(1)} s`);
  };
  const seedLog: string[] = [];
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
       from scan_days d
      cross join (values ${dims.map(([dim, prefix, n]) => `('${dim}', '${prefix}', ${n})`).join(', ')}) x(dimension, prefix, n)
      cross join lateral generate_series(1, least(x.n, d.count)::int) v
      where ${where}`;
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

  // The workspace: WS_CODES codes, WS_SCANS raw scans, inserted in time order as ingestion appends them (each code's
  // scans spread over the table). Indexes of scans are dropped for the load and rebuilt after (as a restore would),
  // which is several times faster than maintaining four indexes row by row.
  const ws = (await existing('Bench workspace')) ?? (await accounts.createOrganization({ name: 'Bench workspace', plan: 'agency', email: 'bench-ws@example.com' }));
  const { secret: wsSecret } = await accounts.createKey(ws.id, { name: 'bench' });
  await step(
    `workspace: ${WS_CODES} codes`,
    `insert into qr_codes (id, organization_id, kind, name, type, short_code, target, design, environment, created_at, updated_at)
     select 'qr_ws' || lpad(g::text, 12, '0'), ${lit(ws.id)}, 'dynamic', 'Campaign ' || g, 'url', 'w' || lpad(to_hex(g), 6, '0'),
            '{"destination":"https://example.com/","utm":null}'::jsonb, '{}'::jsonb, 'live', now() - interval '${DAYS} days', now()
       from generate_series(1, ${WS_CODES}) g`,
  );
  const indexes = (await pg.query<{ indexname: string; indexdef: string }>(`select indexname, indexdef from pg_indexes where tablename = 'scans' and indexname <> 'scans_pkey'`)).rows;
  if (!reuse) await pg.query(`alter table scans drop constraint scans_pkey; ${indexes.map((i) => `drop index ${i.indexname};`).join(' ')}`);
  const pickSql = (xs: (string | null)[], mul: number) => `(array[${xs.map((x) => (x === null ? 'null' : lit(x))).join(', ')}]::text[])[1 + (g * ${mul}) % ${xs.length}]`;
  await step(
    `workspace: ${WS_SCANS.toLocaleString('en')} raw scans over ${DAYS} days`,
    `insert into scans (id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language, visit_unique, expired)
     select 'scan_ws' || lpad(g::text, 10, '0'), ${lit(ws.id)}, 'qr_ws' || lpad((1 + (g::bigint * 7919) % ${WS_CODES})::text, 12, '0'),
            date_trunc('second', now()) - interval '${DAYS} days' + (g::bigint * ${DAYS * 86_400_000} / ${WS_SCANS}) * interval '1 millisecond',
            ${pickSql(COUNTRIES, 7)}, ${pickSql(CITIES, 11)}, ${pickSql(DEVICES, 3)}, ${pickSql(OSES, 13)}, ${pickSql(BROWSERS, 17)},
            ${pickSql(REFERRERS, 19)}, ${pickSql(LANGUAGES, 23)}, g % 5 <> 0, false
       from generate_series(1, ${WS_SCANS}) g`,
  );
  await step(
    `workspace: rebuild scans' primary key and ${indexes.length} indexes`,
    `alter table scans add constraint scans_pkey primary key (id); ${indexes.map((i) => `${i.indexdef};`).join(' ')}`,
  );
  await step(
    'workspace: scan_hours from the raw scans',
    `insert into scan_hours (qr_code_id, hour, count, uniques, expired, first_at, last_at)
     select qr_code_id, date_trunc('hour', scanned_at at time zone 'UTC') at time zone 'UTC', count(*), count(*) filter (where visit_unique), 0, min(scanned_at), max(scanned_at)
       from scans where organization_id = ${lit(ws.id)} group by 1, 2`,
  );
  await step(
    'workspace: scan_days from scan_hours',
    `insert into scan_days (qr_code_id, day, count, uniques, first_at, last_at)
     select qr_code_id, (hour at time zone 'UTC')::date, sum(count), sum(uniques), min(first_at), max(last_at)
       from scan_hours where qr_code_id like 'qr\\_ws%' group by 1, 2`,
  );
  await step(
    'workspace: scan_day_values (40 values per code and day)',
    values(`d.qr_code_id like 'qr\\_ws%'`, [
      ['country', 'C', 8], ['city', 'City ', 10], ['device', 'D', 3], ['os', 'O', 5], ['browser', 'B', 5], ['referrer', 'r', 3], ['language', 'l', 6],
    ]),
  );
  await step(
    'workspace: scan_value_totals, scan_count',
    `insert into scan_value_totals (qr_code_id, dimension, value, count)
     select qr_code_id, dimension, value, sum(count) from scan_day_values where qr_code_id like 'qr\\_ws%' group by 1, 2, 3;
     update qr_codes q set scan_count = d.n from (select qr_code_id, sum(count) as n from scan_days where qr_code_id like 'qr\\_ws%' group by 1) d where q.id = d.qr_code_id`,
  );
  await step(
    'vacuum analyze',
    ['scans', 'scan_hours', 'scan_days', 'scan_day_values', 'scan_value_totals', 'qr_codes'].map((t) => `vacuum analyze ${t}`),
  );
  const seedMs = Date.now() - s0;
  const sizes = (
    await pg.query<{ t: string; n: string; size: string }>(
      `select t, (select reltuples::bigint from pg_class where relname = t)::text as n, pg_size_pretty(pg_total_relation_size(t::regclass)) as size
         from unnest(array['scans', 'scan_hours', 'scan_days', 'scan_day_values', 'scan_value_totals']) t`,
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
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) newlines++;
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
  redis.disconnect();
  await api.close();
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
