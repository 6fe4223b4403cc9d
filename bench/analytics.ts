/**
 * bench:analytics — scan ingestion throughput and GET /v1/qr-codes/{id}/analytics latency.
 *  1. ingestion: BENCH_SCANS scans (twice: 20 hot codes today, then 1,000 codes over 30 days) are written to the Redis stream as entries of 500 (what the scan
 *     host's flush writes), while one in-process worker (the real WorkerModule) consumes them; the figure is scans
 *     stored per second until the stream is drained. No webhook subscribes (the common case).
 *  2. analytics latency: one code with 100 scans and one with 1,000,000 scans over 366 days (raw scans and rollups
 *     inserted with generate_series, ~320 distinct dimension values a day). Goal: the same latency for both, because
 *     the query reads rollups only.
 * BENCH_INGESTION_ONLY=1 stops after part 1 (about a minute instead of three).
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
import { fmt, timeRequests } from './lib';

const SCANS = Number(process.env.BENCH_SCANS ?? 100_000);
const CODES = 1000;
const BIG = 1_000_000;
const REQUESTS = 200;

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
  const org = await accounts.createOrganization({ name: 'Bench', plan: 'agency', email: 'bench@example.com' });
  const { secret } = await accounts.createKey(org.id, { name: 'bench' });
  await em().execute(
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
  const ingestion = [await ingest('live traffic (20 codes, today)', 20, 1), await ingest('worst case (1,000 codes × 30 days)', CODES, 30)];
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

  // 2. Analytics latency: 100 scans vs 1,000,000 scans (rollups written as ingestion would have written them).
  const small = codeId(CODES + 1);
  const big = codeId(CODES + 2);
  const seed = async (id: string, total: number, days: number) => {
    const perDay = Math.floor(total / days);
    await em().execute(
      `insert into scans (id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language)
       select 'scan_' || ? || g, ?, ?, date_trunc('day', now()) - ((g % ?) || ' days')::interval + ((g % 86400) || ' seconds')::interval,
              'C' || (g % 50), 'City ' || (g % 200), 'Mobile', 'iOS', 'Chrome', 'r' || (g % 30) || '.example', 'l' || (g % 20)
         from generate_series(1, ?) g`,
      [id, org.id, id, days, total],
    );
    await em().execute(
      `insert into scan_days (qr_code_id, day, count, first_at, last_at)
       select ?, (now() at time zone 'UTC')::date - d, ?, date_trunc('day', now()) - (d || ' days')::interval,
              date_trunc('day', now()) - (d || ' days')::interval + interval '23 hours'
         from generate_series(0, ? - 1) d`,
      [id, perDay, days],
    );
    await em().execute(
      `insert into scan_day_values (qr_code_id, dimension, day, value, count)
       select ?, x.dimension, (now() at time zone 'UTC')::date - d, x.prefix || v, greatest(1, ? / x.n)
         from generate_series(0, ? - 1) d
        cross join (values ('country', 'C', 50), ('city', 'City ', 200), ('device', 'D', 4), ('os', 'O', 6),
                           ('browser', 'B', 8), ('referrer', 'r', 30), ('language', 'l', 20)) x(dimension, prefix, n)
        cross join lateral generate_series(1, x.n) v`,
      [id, perDay, days],
    );
    // The all-time totals the worker keeps next to the daily rollups (what an unfiltered request reads).
    await em().execute(
      `insert into scan_value_totals (qr_code_id, dimension, value, count)
       select qr_code_id, dimension, value, sum(count) from scan_day_values where qr_code_id = ? group by 1, 2, 3`,
      [id],
    );
    await em().execute(`update qr_codes set scan_count = ? where id = ?`, [total, id]);
  };
  const s0 = Date.now();
  await seed(small, 100, 10);
  await seed(big, BIG, 366);
  for (const table of ['scans', 'scan_days', 'scan_day_values', 'scan_value_totals']) await em().execute(`analyze ${table}`);
  const seedMs = Date.now() - s0;
  const [rollups] = await em().execute<{ n: string }[]>(`select count(*) as n from scan_day_values where qr_code_id = ?`, [big]);

  const headers = { authorization: `Bearer ${secret}` };
  const get = (path: string) => async () => {
    const res = await fetch(`${origin}${path}`, { headers });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const today = new Date().toISOString().slice(0, 10);
  const monthAgo = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
  for (let i = 0; i < 20; i++) await get(`/v1/qr-codes/${big}/analytics`)();

  const lines = [
    ...ingestionLines,
    `analytics latency (${REQUESTS} sequential requests each; 1M code: ${rollups.n} scan_day_values rows, seeded in ${(seedMs / 1000).toFixed(1)} s):`,
    'code           range                  p50        p95        p99',
  ];
  for (const [label, id] of [
    ['100 scans', small],
    ['1,000,000', big],
  ]) {
    for (const [rangeLabel, query] of [
      ['all time (default)', ''],
      ['last 30 days', `?from=${monthAgo}&to=${today}`],
    ]) {
      const r = await timeRequests(REQUESTS, get(`/v1/qr-codes/${id}/analytics${query}`));
      lines.push(`${label.padEnd(14)} ${rangeLabel.padEnd(22)} ${fmt(r.p50).padEnd(10)} ${fmt(r.p95).padEnd(10)} ${fmt(r.p99)}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  redis.disconnect();
  await api.close();
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
