import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApiApp, createScanApp, createWorkerApp } from '../../src/app/bootstrap';
import { AppConfig, loadConfig } from '../../src/common/config/config';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import type { PlanId } from '../../src/common/auth/plan';
import { loadPlans } from '../../src/modules/accounts/plans';
import { migrate } from '../../src/migrate';
import { assertMatchesOpenApi } from './openapi-check';

/** Tests make many requests with one key: unless a test names its own PLANS_FILE, per-minute limits are lifted (the
 * rate-limit tests set small ones explicitly). */
let generousPlans: string | undefined;
function defaultPlansFile(): string {
  generousPlans ??= writePlans(Object.fromEntries(['free', 'plus', 'pro', 'ultra', 'agency'].map((p) => [p, { requests_per_minute: 100_000 }])));
  return generousPlans;
}

/** Tests play many clients from one machine through X-Forwarded-For, as behind a reverse proxy on loopback (the
 * product's default trusts no proxy; a test that checks that passes TRUST_PROXY: ''). */
export function testConfig(overrides: Record<string, string | undefined> = {}): AppConfig {
  return loadConfig({ ...process.env, NODE_ENV: 'test', PLANS_FILE: defaultPlansFile(), TRUST_PROXY: 'loopback', ...overrides });
}

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

/** Boots the same API app as main.api.ts on a free port. */
export async function startApi(overrides: Record<string, string | undefined> = {}): Promise<TestApp> {
  const config = testConfig(overrides);
  const app = await createApiApp(config, { logLevel: process.env.TEST_LOG_LEVEL ?? 'silent' });
  await app.listen(0, '127.0.0.1');
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  return { app, config, origin, close: () => app.close() };
}

export async function startScan(overrides: Record<string, string | undefined> = {}, boot: { testGeoHeader?: boolean } = {}): Promise<TestApp> {
  const config = testConfig(overrides);
  const app = await createScanApp(config, { logLevel: process.env.TEST_LOG_LEVEL ?? 'silent', ...boot });
  await app.listen(0, '127.0.0.1');
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  return { app, config, origin, close: () => app.close() };
}

/**
 * Webhook settings every test worker shares. Test files run in parallel against one database and one Redis, and any
 * worker may deliver any due delivery (the database row is the truth, the sweeper picks it up), so all workers must
 * agree on how deliveries behave: a fast retry schedule, loopback receivers allowed, a quick sweeper.
 */
export const TEST_WORKER_WEBHOOKS = {
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_DELAYS: '150,150,150,150,150,150',
  WEBHOOK_AUTO_DISABLE_FAILURES: '10',
  WEBHOOK_AUTO_DISABLE_HOURS: '0',
  WEBHOOK_SWEEP_INTERVAL_MS: '300',
};

/** Boots the worker (Bull processors and schedules) in this process, as main.worker.ts does, with its health and
 * metrics server on a free port. */
export async function startWorker(overrides: Record<string, string> = {}): Promise<TestApp> {
  const config = testConfig({ ...TEST_WORKER_WEBHOOKS, ...overrides });
  const app = await createWorkerApp(config, { logLevel: process.env.TEST_LOG_LEVEL ?? 'silent' });
  await app.listen(0, '127.0.0.1');
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  return { app, config, origin, close: () => app.close() };
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

export interface TestOrg {
  organizationId: string;
  keyId: string;
  apiKey: string;
}

/** A fresh workspace with one key, straight through the accounts service (as the CLI does). */
export async function createOrg(
  app: TestApp,
  opts: { plan?: PlanId; scopes?: string[]; environment?: 'live' | 'test'; expiresInDays?: number; name?: string } = {},
): Promise<TestOrg> {
  const orm = app.app.get(MikroORM);
  const accounts = new AccountsService(orm.em.fork() as never, loadPlans(app.config.plansFile));
  const org = await accounts.createOrganization({ name: opts.name ?? 'Test workspace', plan: opts.plan ?? 'pro', email: 'owner@example.com' });
  const { key, secret } = await accounts.createKey(org.id, {
    name: 'test key',
    scopes: opts.scopes,
    environment: opts.environment,
    expiresInDays: opts.expiresInDays,
  });
  return { organizationId: org.id, keyId: key.id, apiKey: secret };
}

/** Another key of an existing workspace. */
export async function addKey(app: TestApp, organizationId: string, opts: { scopes?: string[]; environment?: 'live' | 'test' } = {}): Promise<TestOrg> {
  const accounts = new AccountsService(app.app.get(MikroORM).em.fork() as never, loadPlans(app.config.plansFile));
  const { key, secret } = await accounts.createKey(organizationId, { name: 'another key', scopes: opts.scopes, environment: opts.environment });
  return { organizationId, keyId: key.id, apiKey: secret };
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A small HTTP client over fetch: JSON in, JSON (or text) out. Every JSON answer of the api is checked against its
 * OpenAPI document (openapi-check.ts). */
export async function http<T = any>(
  origin: string,
  method: string,
  path: string,
  opts: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) {
    body = opts.rawBody;
    headers['content-type'] ??= 'application/json';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const send = () => fetch(`${origin}${path}`, { method, headers, body, redirect: 'manual' });
  // A test that blocks its process (spawnSync of the CLI, which also freezes the api it hosts) can leave fetch a
  // kept-alive socket the server has reset meanwhile: a GET or HEAD is retried once on a fresh connection.
  const res = await send().catch((err: Error & { cause?: { code?: string } }) => {
    if ((method === 'GET' || method === 'HEAD') && err.cause?.code === 'ECONNRESET') return send();
    throw err;
  });
  const text = await res.text();
  let parsed: unknown = text;
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.includes('json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      /* leave as text */
    }
    if (typeof parsed === 'object') await assertMatchesOpenApi(origin, method, path, res.status, parsed, contentType);
  } else if (contentType) await assertMatchesOpenApi(origin, method, path, res.status, undefined, contentType);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** A PLANS_FILE with these overrides, for tests that need small limits. */
export function writePlans(plans: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'plans-')), 'plans.json');
  writeFileSync(file, JSON.stringify(plans));
  return file;
}

/** A fresh EntityManager on the app's database, for arranging state a test cannot reach through the API. */
export function db(app: TestApp): EntityManager {
  return app.app.get(MikroORM).em.fork() as unknown as EntityManager;
}

export interface CreatedCode {
  id: string;
  short_code: string;
  [field: string]: unknown;
}

/** Creates a code through the API (POST /v1/qr-codes) and fails the test unless it answers 201. */
export async function createCode(api: TestApp, org: TestOrg, body: Record<string, unknown>): Promise<CreatedCode> {
  const res = await http<CreatedCode>(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body });
  if (res.status !== 201) throw new Error(`POST /v1/qr-codes answered ${res.status}: ${res.text}`);
  return res.body;
}

/**
 * A PostgreSQL database of the calling test file's own, created and migrated on the test server: for a file whose
 * assertions would see other files' rows through the shared database (the worker's sweepers resume any stalled batch
 * and deliver any due webhook they find there). `drop()` removes it, closing whatever connections are left.
 */
export async function isolatedDatabase(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('isolatedDatabase needs DATABASE_URL: run the tests through `npm test`.');
  const name = `scanlink_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}_${Date.now().toString(36)}`;
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** REDIS_URL on another logical database: a process started with it keeps its keys and streams apart from the other
 * test files' processes (pub/sub channels are shared across databases, so cache invalidations still arrive). */
export function isolatedRedisUrl(db: number): string {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  url.pathname = `/${db}`;
  return url.toString();
}
