import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  isEmail,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { parseDnsServers } from './dns-servers';
import { parseTrustProxy } from '../http/client-address';

const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;
const emptyIsUnset = ({ value }: { value: unknown }) => (value === '' ? undefined : value);
const urlOpts = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/** Every environment variable the processes read. Validated once at boot: a bad value stops the process. */
class EnvironmentVariables {
  @IsIn(['development', 'production', 'test']) @IsOptional() NODE_ENV?: string;
  @IsString() @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL!: string;
  @IsString() @Matches(/^rediss?:\/\//, { message: 'REDIS_URL must be a redis:// URL' }) REDIS_URL!: string;
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) @IsOptional() PORT?: number;
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) @IsOptional() SCAN_PORT?: number;
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) @IsOptional() WORKER_PORT?: number;
  @Transform(emptyIsUnset) @IsString() @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' }) @IsOptional() METRICS_TOKEN?: string;
  @Transform(emptyIsUnset) @IsString() @MinLength(16, { message: 'ADMIN_TOKEN must be at least 16 characters' }) @IsOptional() ADMIN_TOKEN?: string;
  @IsUrl(urlOpts) @IsOptional() API_BASE_URL?: string;
  @IsUrl(urlOpts) @IsOptional() SCAN_BASE_URL?: string;
  @IsUrl(urlOpts) @IsOptional() IMAGE_BASE_URL?: string;
  @IsUrl(urlOpts) @IsOptional() DOCS_BASE_URL?: string;
  @IsString() @IsOptional() STORAGE_DIR?: string;
  @IsIn(['fs', 's3']) @IsOptional() STORAGE_DRIVER?: string;
  @Transform(emptyIsUnset) @IsString() @IsOptional() S3_BUCKET?: string;
  @Transform(emptyIsUnset) @IsString() @IsOptional() S3_REGION?: string;
  @Transform(emptyIsUnset) @IsUrl(urlOpts) @IsOptional() S3_ENDPOINT?: string;
  @Transform(emptyIsUnset) @IsString() @IsOptional() S3_ACCESS_KEY_ID?: string;
  @Transform(emptyIsUnset) @IsString() @IsOptional() S3_SECRET_ACCESS_KEY?: string;
  @Transform(emptyIsUnset) @IsIn(['true', 'false', '1', '0']) @IsOptional() S3_FORCE_PATH_STYLE?: string;
  @IsString() @IsOptional() LOGO_ALLOW_HOSTS?: string;
  @Transform(toInt) @IsInt() @Min(1) @IsOptional() FILE_MAX_BYTES?: number;
  @IsString() @IsOptional() LOCAL_DATA_DIR?: string;
  // docker/compose.yaml passes `${SMTP_URL:-}` and the S3 variables as empty strings when unset: empty means unset.
  @Transform(emptyIsUnset) @IsString() @Matches(/^smtps?:\/\//, { message: 'SMTP_URL must be an smtp:// or smtps:// URL' }) @IsOptional()
  SMTP_URL?: string;
  @Transform(emptyIsUnset) @IsString() @IsOptional() MAIL_FROM?: string;
  @Transform(emptyIsUnset) @IsString() @MinLength(16, { message: 'DASHBOARD_JWT_SECRET must be at least 16 characters' }) @IsOptional()
  DASHBOARD_JWT_SECRET?: string;
  @Transform(emptyIsUnset) @IsUrl(urlOpts) @IsOptional() DASHBOARD_JWKS_URL?: string;
  @IsString() @IsOptional() DASHBOARD_JWT_ISSUER?: string;
  @IsString() @IsOptional() DASHBOARD_JWT_AUDIENCE?: string;
  @Transform(emptyIsUnset) @IsUrl(urlOpts) @IsOptional() OIDC_ISSUER_URL?: string;
  @Transform(emptyIsUnset) @IsString() @IsOptional() OIDC_CLIENT_ID?: string;
  @Transform(emptyIsUnset) @IsString() @IsOptional() OIDC_CLIENT_SECRET?: string;
  @IsString() @MinLength(16, { message: 'APP_SECRET must be at least 16 characters' }) @IsOptional()
  APP_SECRET?: string;
  @IsString() @IsOptional() PLANS_FILE?: string;
  @Transform(toInt) @IsInt() @Min(1) @IsOptional() TRASH_RETENTION_DAYS?: number;
  @Transform(toInt) @IsInt() @Min(0) @IsOptional() GS1_RETIREMENT_DAYS?: number;
  @Transform(emptyIsUnset) @IsIn(['true', 'false', '1', '0']) @IsOptional() GS1_REQUIRE_PREFIX?: string;
  @IsString() @IsOptional() WEBHOOK_ALLOW_HOSTS?: string;
  @IsString() @Matches(/^\d+(,\d+)*$/, { message: 'WEBHOOK_RETRY_DELAYS must be comma-separated milliseconds' })
  @IsOptional()
  WEBHOOK_RETRY_DELAYS?: string;
  @Transform(toInt) @IsInt() @Min(1) @IsOptional() WEBHOOK_AUTO_DISABLE_FAILURES?: number;
  @Transform(toInt) @IsInt() @Min(0) @IsOptional() WEBHOOK_AUTO_DISABLE_HOURS?: number;
  @Transform(toInt) @IsInt() @Min(50) @IsOptional() WEBHOOK_SWEEP_INTERVAL_MS?: number;
  @Transform(toInt) @IsInt() @Min(500) @Max(600_000) @IsOptional() BATCH_CLAIM_TTL_MS?: number;
  @Transform(toInt) @IsInt() @Min(1) @Max(16) @IsOptional() PNG_RENDER_PROCESSES?: number;
  @IsString() @IsOptional() TRUST_PROXY?: string;
  @Transform(toInt) @IsInt() @Min(1) @IsOptional() SCAN_RETENTION_DAYS?: number;
  @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) @IsOptional() API_STATEMENT_TIMEOUT_MS?: number;
  @Transform(toInt) @IsInt() @Min(0) @Max(3_600_000) @IsOptional() ANALYTICS_STATEMENT_TIMEOUT_MS?: number;
  @Transform(toInt) @IsInt() @Min(10) @Max(60_000) @IsOptional() SCAN_FLUSH_INTERVAL_MS?: number;
  @Transform(toInt) @IsInt() @Min(1) @IsOptional() SCAN_CACHE_TTL_SECONDS?: number;
  @Transform(toInt) @IsInt() @Min(1) @IsOptional() LEAD_RATE_LIMIT_PER_HOUR?: number;
  @IsString() @IsOptional() DOMAIN_DNS_SERVERS?: string;
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) @IsOptional() LOG_LEVEL?: string;
  /** Read by the logger (logging/logger.ts usePretty); checked here so that a typo stops the process. */
  @Transform(emptyIsUnset) @IsIn(['pretty', 'json'], { message: 'LOG_FORMAT must be pretty or json' }) @IsOptional() LOG_FORMAT?: string;
  /** Read by members/passwords.ts; checked here so that a typo stops the process. */
  @Transform(toInt) @IsInt() @Min(1) @Max(64) @IsOptional() PASSWORD_HASH_CONCURRENCY?: number;
}

export interface AppConfig {
  env: 'development' | 'production' | 'test';
  databaseUrl: string;
  redisUrl: string;
  port: number;
  scanPort: number;
  /** The worker's HTTP port: health and metrics only. */
  workerPort: number;
  /** When set, `GET /metrics` needs `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
  /** When set, Bull Board answers at /admin/queues on the api (HTTP Basic, password = the token); 404 otherwise. */
  adminToken?: string;
  apiBaseUrl: string;
  /** Where `doc_url` in errors points: `<docsBaseUrl>/errors#<code>` (default: the api's own /docs pages). */
  docsBaseUrl: string;
  scanBaseUrl: string;
  imageBaseUrl: string;
  localDataDir: string;
  storageDriver: 'fs' | 's3';
  storageDir: string;
  /** Set when STORAGE_DRIVER=s3 (an S3-compatible bucket holds the images). */
  s3?: {
    bucket: string;
    region: string;
    endpoint?: string;
    accessKeyId?: string;
    secretAccessKey?: string;
    forcePathStyle: boolean;
  };
  /** Hosts a logo URL may name although they resolve to private addresses: development and tests only. */
  logoAllowHosts: string[];
  /** Largest upload POST /v1/files accepts (FILE_MAX_BYTES, default 25 MB). */
  fileMaxBytes: number;
  smtpUrl?: string;
  mailFrom: string;
  mailDir: string;
  dashboardJwtSecret?: string;
  dashboardJwksUrl?: string;
  /** When set, dashboard tokens must carry this `iss` / `aud` (checked with a small clock skew). */
  dashboardJwtIssuer?: string;
  dashboardJwtAudience?: string;
  /** OpenID Connect single sign-on: set when OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET all are. */
  oidc?: { issuerUrl: string; clientId: string; clientSecret: string };
  appSecret: string;
  plansFile?: string;
  trashRetentionDays: number;
  gs1RetirementDays: number;
  /** Dynamic GS1 codes on the default scan host need a company prefix the operator granted the workspace
   * (GS1_REQUIRE_PREFIX; default true in production, false in development and tests). */
  gs1RequirePrefix: boolean;
  webhookAllowHosts: string[];
  webhookRetryDelaysMs: number[];
  webhookAutoDisableFailures: number;
  webhookAutoDisableHours: number;
  /** How often a worker re-enqueues due deliveries Bull lost (Redis restart, killed worker). */
  webhookSweepIntervalMs: number;
  /** How long a worker holds a claimed chunk of batch items; a killed worker's chunk is taken over after it. */
  batchClaimTtlMs: number;
  /** The api's renderer child processes for PNGs and WebPs above 1,500 px (1–16; default one per core, at most 4). */
  pngRenderProcesses: number;
  /** Which peers' X-Forwarded-For is believed (proxy-addr syntax): the client IP for geolocation and lead limits. */
  trustProxy: string;
  /** Raw scans are deleted after this many days; daily rollups (what analytics reads) are kept with the code. */
  scanRetentionDays: number;
  /** PostgreSQL statement_timeout of every statement the api process runs (ms; 0 = none). The worker and migrations
   * have none. A statement stopped by it answers 504 `query_timeout`. */
  apiStatementTimeoutMs: number;
  /** The tighter limit of the analytics reads (code and workspace analytics, the scan list; ms; 0 = the api's). */
  analyticsStatementTimeoutMs: number;
  /** How often a scan process flushes its in-memory scans to the Redis stream. */
  scanFlushIntervalMs: number;
  /** How long a scan process and Redis keep a code without an invalidation (bounds any missed invalidation). */
  scanCacheTtlSeconds: number;
  /** Form posts per client IP per hour on the scan host (the IP is only ever held as a keyed hash, in Redis). */
  leadRateLimitPerHour: number;
  /** DNS servers (`host:port`) for custom-domain TXT checks, replacing the system resolvers; empty = the system's. */
  domainDnsServers: string[];
  logLevel: string;
}

/** The retry schedule of docs/webhooks.md: attempts 2..7 follow these delays after the previous attempt. */
export const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000];

export class ConfigError extends Error {}

/** `a@b.example` or `Name <a@b.example>` (what a From header holds). */
function isMailbox(value: string): boolean {
  const m = /^\s*(?:[^<>]*\S\s*<([^<>\s]+)>|([^<>\s]+))\s*$/.exec(value);
  const address = m ? (m[1] ?? m[2]) : '';
  return isEmail(address, { allow_display_name: false, require_tld: false });
}

const CONSTRAINT_PRIORITY = ['isString', 'isInt', 'matches', 'isUrl', 'isIn', 'minLength', 'min', 'max'];

const trimSlash = (s: string) => s.replace(/\/+$/, '');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const raw = plainToInstance(EnvironmentVariables, { ...env }, { excludeExtraneousValues: false });
  const errors = validateSync(raw, { skipMissingProperties: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => {
      const constraints = e.constraints ?? {};
      // One reason per variable, the most telling first ("must be an integer" before "must not be greater than").
      const key = CONSTRAINT_PRIORITY.find((k) => constraints[k]) ?? Object.keys(constraints)[0];
      const why = constraints[key] ?? 'invalid value';
      const value = e.property === 'DATABASE_URL' || e.property.includes('SECRET') || e.property.endsWith('_TOKEN') ? '(hidden)' : JSON.stringify(e.value);
      return `  ${e.property}=${value}: ${why}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const nodeEnv = (raw.NODE_ENV ?? 'development') as AppConfig['env'];
  if (raw.STORAGE_DRIVER === 's3' && !raw.S3_BUCKET) {
    throw new ConfigError('Invalid configuration:\n  S3_BUCKET is required when STORAGE_DRIVER=s3');
  }
  // No built-in fallback: a public default would let anyone mint dashboard tokens or forge cursors. `npm run local`
  // generates both once and keeps them in its data directory; `npm test` generates them per run.
  const missing = [
    !raw.APP_SECRET && '  APP_SECRET is required (signs cursors, seals webhook secrets and idempotent answers); `npm run local` generates one',
    !raw.DASHBOARD_JWT_SECRET && !raw.DASHBOARD_JWKS_URL &&
      '  DASHBOARD_JWT_SECRET or DASHBOARD_JWKS_URL is required (verifies dashboard session tokens); `npm run local` generates a secret',
  ].filter(Boolean);
  if (missing.length > 0) throw new ConfigError(`Invalid configuration:\n${missing.join('\n')}`);
  const oidcError = checkOidc(raw, nodeEnv);
  if (oidcError) throw new ConfigError(`Invalid configuration:\n  ${oidcError}`);
  try {
    parseTrustProxy(raw.TRUST_PROXY ?? '');
  } catch (err) {
    throw new ConfigError(
      `Invalid configuration:\n  TRUST_PROXY must be true, false, or comma-separated IP addresses, CIDR ranges or the names loopback, linklocal, uniquelocal (${(err as Error).message})`,
    );
  }
  // A base URL goes into every short URL (printed into codes), link and docs address: scheme, host, port and path only.
  const urlProblems = (['API_BASE_URL', 'SCAN_BASE_URL', 'IMAGE_BASE_URL', 'DOCS_BASE_URL'] as const).flatMap((name) => {
    const value = raw[name];
    if (!value) return [];
    const u = new URL(value);
    const extra = [u.username || u.password ? 'a user name or password' : '', u.search || value.includes('?') ? 'a query' : '', u.hash || value.includes('#') ? 'a fragment' : ''].filter(Boolean);
    return extra.length ? [`  ${name}=${JSON.stringify(value)}: must be scheme, host, port and path only, without ${extra.join(', ')}`] : [];
  });
  if (raw.MAIL_FROM !== undefined && !isMailbox(raw.MAIL_FROM)) {
    urlProblems.push(`  MAIL_FROM=${JSON.stringify(raw.MAIL_FROM)}: must be an e-mail address, or a name and one in angle brackets (Scanlink <no-reply@example.com>)`);
  }
  if (urlProblems.length > 0) throw new ConfigError(`Invalid configuration:\n${urlProblems.join('\n')}`);
  const dnsServers = parseDnsServers(raw.DOMAIN_DNS_SERVERS ?? '');
  if ('error' in dnsServers) throw new ConfigError(`Invalid configuration:\n  ${dnsServers.error}`);
  const localDataDir = resolve(raw.LOCAL_DATA_DIR ?? '.local');
  const port = raw.PORT ?? 3000;
  const scanPort = raw.SCAN_PORT ?? 3001;
  const scanBaseUrl = trimSlash(raw.SCAN_BASE_URL ?? `http://localhost:${scanPort}`);
  return {
    env: nodeEnv,
    databaseUrl: raw.DATABASE_URL,
    redisUrl: raw.REDIS_URL,
    port,
    scanPort,
    workerPort: raw.WORKER_PORT ?? 3002,
    metricsToken: raw.METRICS_TOKEN || undefined,
    adminToken: raw.ADMIN_TOKEN || undefined,
    apiBaseUrl: trimSlash(raw.API_BASE_URL ?? `http://localhost:${port}/v1`),
    docsBaseUrl: trimSlash(raw.DOCS_BASE_URL ?? `${new URL(raw.API_BASE_URL ?? `http://localhost:${port}`).origin}/docs`),
    scanBaseUrl,
    imageBaseUrl: trimSlash(raw.IMAGE_BASE_URL ?? `${scanBaseUrl}/images`),
    localDataDir,
    storageDriver: (raw.STORAGE_DRIVER ?? 'fs') as 'fs' | 's3',
    storageDir: resolve(raw.STORAGE_DIR ?? `${localDataDir}/storage`),
    s3:
      raw.STORAGE_DRIVER === 's3' && raw.S3_BUCKET
        ? {
            bucket: raw.S3_BUCKET,
            region: raw.S3_REGION ?? 'us-east-1',
            endpoint: raw.S3_ENDPOINT,
            accessKeyId: raw.S3_ACCESS_KEY_ID,
            secretAccessKey: raw.S3_SECRET_ACCESS_KEY,
            forcePathStyle: raw.S3_FORCE_PATH_STYLE === 'true' || raw.S3_FORCE_PATH_STYLE === '1',
          }
        : undefined,
    fileMaxBytes: raw.FILE_MAX_BYTES ?? 25 * 1024 * 1024,
    logoAllowHosts: (raw.LOGO_ALLOW_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    smtpUrl: raw.SMTP_URL,
    mailFrom: raw.MAIL_FROM ?? 'Scanlink <no-reply@scanlink.local>',
    mailDir: resolve(`${localDataDir}/mail`),
    dashboardJwtSecret: raw.DASHBOARD_JWT_SECRET,
    dashboardJwksUrl: raw.DASHBOARD_JWKS_URL,
    dashboardJwtIssuer: raw.DASHBOARD_JWT_ISSUER || undefined,
    dashboardJwtAudience: raw.DASHBOARD_JWT_AUDIENCE || undefined,
    oidc:
      raw.OIDC_ISSUER_URL && raw.OIDC_CLIENT_ID && raw.OIDC_CLIENT_SECRET
        ? { issuerUrl: raw.OIDC_ISSUER_URL, clientId: raw.OIDC_CLIENT_ID, clientSecret: raw.OIDC_CLIENT_SECRET }
        : undefined,
    appSecret: raw.APP_SECRET as string,
    plansFile: raw.PLANS_FILE,
    trashRetentionDays: raw.TRASH_RETENTION_DAYS ?? 30,
    gs1RetirementDays: raw.GS1_RETIREMENT_DAYS ?? 365,
    gs1RequirePrefix: raw.GS1_REQUIRE_PREFIX === undefined ? nodeEnv === 'production' : raw.GS1_REQUIRE_PREFIX === 'true' || raw.GS1_REQUIRE_PREFIX === '1',
    webhookAllowHosts: (raw.WEBHOOK_ALLOW_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    webhookRetryDelaysMs: raw.WEBHOOK_RETRY_DELAYS
      ? raw.WEBHOOK_RETRY_DELAYS.split(',').map(Number)
      : DEFAULT_WEBHOOK_RETRY_DELAYS_MS,
    webhookAutoDisableFailures: raw.WEBHOOK_AUTO_DISABLE_FAILURES ?? 20,
    webhookAutoDisableHours: raw.WEBHOOK_AUTO_DISABLE_HOURS ?? 24,
    webhookSweepIntervalMs: raw.WEBHOOK_SWEEP_INTERVAL_MS ?? 5000,
    batchClaimTtlMs: raw.BATCH_CLAIM_TTL_MS ?? 30_000,
    pngRenderProcesses: raw.PNG_RENDER_PROCESSES ?? Math.max(1, Math.min(4, availableParallelism())),
    // No proxy is trusted unless named: otherwise any client on a trusted range could pick its own address.
    trustProxy: raw.TRUST_PROXY ?? '',
    scanRetentionDays: raw.SCAN_RETENTION_DAYS ?? 400,
    apiStatementTimeoutMs: raw.API_STATEMENT_TIMEOUT_MS ?? 30_000,
    analyticsStatementTimeoutMs: raw.ANALYTICS_STATEMENT_TIMEOUT_MS ?? 10_000,
    scanFlushIntervalMs: raw.SCAN_FLUSH_INTERVAL_MS ?? 250,
    scanCacheTtlSeconds: raw.SCAN_CACHE_TTL_SECONDS ?? 300,
    leadRateLimitPerHour: raw.LEAD_RATE_LIMIT_PER_HOUR ?? 20,
    domainDnsServers: dnsServers.servers,
    logLevel: raw.LOG_LEVEL ?? (nodeEnv === 'test' ? 'warn' : 'info'),
  };
}

/** Single sign-on takes all three OIDC_* variables or none; in production the issuer must be served over https. */
function checkOidc(raw: EnvironmentVariables, env: AppConfig['env']): string | undefined {
  const set = [raw.OIDC_ISSUER_URL, raw.OIDC_CLIENT_ID, raw.OIDC_CLIENT_SECRET].filter(Boolean).length;
  if (set === 0) return undefined;
  if (set < 3) return 'OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are required together (single sign-on)';
  const issuer = new URL(raw.OIDC_ISSUER_URL as string);
  if (issuer.search || issuer.hash || issuer.username || issuer.password) return 'OIDC_ISSUER_URL must be the issuer identifier: no query, fragment or credentials';
  if (env === 'production' && issuer.protocol !== 'https:') return 'OIDC_ISSUER_URL must use https in production';
  if (!raw.DASHBOARD_JWT_SECRET) return 'OIDC_ISSUER_URL needs DASHBOARD_JWT_SECRET (single sign-on ends in a Scanlink session)';
  return undefined;
}

export const APP_CONFIG = Symbol('APP_CONFIG');
