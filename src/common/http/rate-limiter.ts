import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis, Result } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ApiException } from '../errors/api.exception';
import { clientAddressKey } from './client-address';
import { REDIS } from '../redis/redis.provider';
import type { AuthContext } from '../auth/auth-context';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** seconds until the window resets */
  reset: number;
}

/** Requests per minute from one client address that carry no valid API key (401s, unknown routes): a brake on key
 * guessing. The address is kept only as an HMAC (APP_SECRET) in a key that expires with its minute. */
export const ANONYMOUS_REQUESTS_PER_MINUTE = 1_000;

/** File uploads per minute per workspace (every key, test and live together). */
export const UPLOADS_PER_MINUTE = 60;

/** Failed Bull Board logins per minute from one client address; past it every login from there waits for the window. */
export const ADMIN_LOGIN_FAILURES_PER_MINUTE = 10;

/** Key-management requests per minute from one client address (dashboard session tokens, valid or not). */
export const DASHBOARD_REQUESTS_PER_MINUTE = 60;

/**
 * One step for an API key: the minute window first (a request refused there does not reach the monthly quota), then
 * the workspace's monthly quota (a request refused by the quota is not counted in it either).
 * Returns [minute count, month count or -1 when not counted].
 */
const CONSUME = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('EXPIRE', KEYS[1], 61) end
if count > tonumber(ARGV[1]) or ARGV[2] == '' then return {count, -1} end
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used >= tonumber(ARGV[2]) then return {count, used} end
used = redis.call('INCR', KEYS[2])
if used == 1 then redis.call('EXPIRE', KEYS[2], 2764800) end
return {count, -1}`;

const CONSUME_COMMAND = 'scanlinkRateLimitConsume';

// The command defineCommand adds to the client (ioredis' documented way to type a Lua command).
declare module 'ioredis' {
  interface RedisCommander<Context> {
    scanlinkRateLimitConsume(minuteKey: string, monthKey: string, limit: number, monthly: number | ''): Result<[number, number], Context>;
  }
}

const windowOf = (now: number) => ({ minute: Math.floor(now / 60_000), reset: 60 - Math.floor((now % 60_000) / 1000) });

/** Fixed one-minute windows per key in Redis (one round trip per request), plus the free plan's monthly quota per
 * workspace (calendar month, UTC), plus a per-client window for requests without a valid key. */
/** The per-minute window of a dashboard session (a signed-in member): the plan's, but never below this, so that a
 * member of a Free workspace (10 a minute for its API keys) can move between screens that make several calls each. */
export const DASHBOARD_MIN_REQUESTS_PER_MINUTE = 120;

const isDashboardSession = (auth: AuthContext): boolean => auth.actor?.type === 'user';

/** The requests a minute of the caller's window: its plan's for an API key, at least DASHBOARD_MIN_REQUESTS_PER_MINUTE
 * for a dashboard session. */
export function perMinuteLimit(auth: AuthContext): number {
  const plan = auth.plan.requests_per_minute;
  return isDashboardSession(auth) ? Math.max(plan, DASHBOARD_MIN_REQUESTS_PER_MINUTE) : plan;
}

@Injectable()
export class RateLimiter {
  /** Requests let through unchecked because Redis did not answer (fail open); reported in the warning log line. */
  failedOpen = 0;
  private lastWarning = 0;
  private readonly logger = new Logger('RateLimiter');

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    // A defined command runs as EVALSHA (the script is sent once, not with every request).
    redis.defineCommand(CONSUME_COMMAND, { numberOfKeys: 2, lua: CONSUME });
  }

  /**
   * Counts a request against its key's window and its workspace's quota. While Redis is down the request is let
   * through (fail open: PostgreSQL alone can still serve it), counted in `failedOpen` and logged at most once a minute;
   * the headers then show a full window.
   */
  async consume(auth: AuthContext, now = Date.now()): Promise<RateLimitState> {
    try {
      if (this.redis.status !== 'ready') throw new Error(`Redis connection is ${this.redis.status}`);
      return await this.count(auth, now);
    } catch (err) {
      if (err instanceof ApiException) throw err;
      this.failedOpen++;
      if (now - this.lastWarning >= 60_000) {
        this.lastWarning = now;
        this.logger.warn({ failed_open_total: this.failedOpen, error: (err as Error).message }, 'rate limits not enforced: Redis unavailable');
      }
      const limit = perMinuteLimit(auth);
      return { limit, remaining: limit, reset: windowOf(now).reset };
    }
  }

  private async count(auth: AuthContext, now: number): Promise<RateLimitState> {
    const { minute, reset } = windowOf(now);
    const rlKey = `rl:${auth.keyId}:${minute}`;
    // The monthly quota counts API requests: a dashboard session's own calls (a screen makes three or four) are not.
    const monthly = isDashboardSession(auth) ? null : auth.plan.monthly_requests;
    const d = new Date(now);
    const monthKey = `quota:${auth.organizationId}:${d.getUTCFullYear()}-${d.getUTCMonth() + 1}`;
    const limit = perMinuteLimit(auth);
    const [count, exhausted] = await this.redis[CONSUME_COMMAND](rlKey, monthKey, limit, monthly === null ? '' : monthly);
    const state = { limit, remaining: Math.max(0, limit - count), reset };
    if (count > limit) {
      throw Object.assign(
        new ApiException('rate_limited', `Too many requests: this key may make ${limit} requests per minute`, { retryAfter: reset, limit }),
        { rateLimit: state },
      );
    }
    if (monthly !== null && exhausted >= 0) {
      const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
      throw Object.assign(
        new ApiException('quota_exceeded', `The ${auth.plan.id} plan includes ${monthly} API requests per calendar month (UTC); the quota is used up`, {
          limit: monthly,
          current_count: exhausted,
          requested: 1,
          plan_id: auth.plan.id,
          retryAfter: Math.ceil((nextMonth - now) / 1000),
        }),
        { rateLimit: state },
      );
    }
    return state;
  }

  /** Counts a request without a valid API key from this client address; undefined while Redis is not connected (the
   * answer is not held up waiting for it). */
  async consumeAnonymous(clientAddress: string | undefined, now = Date.now()): Promise<(RateLimitState & { exceeded: boolean }) | undefined> {
    return this.consumeWindow(this.anonymousKey(clientAddress, windowOf(now).minute), ANONYMOUS_REQUESTS_PER_MINUTE, now);
  }

  /** Counts a key-management request (`/v1/tokens*`, valid session or not) from this client address: slows down
   * session-token guessing and key churn. Undefined while Redis is not connected (fail open). */
  async consumeDashboard(clientAddress: string | undefined, now = Date.now()): Promise<(RateLimitState & { exceeded: boolean }) | undefined> {
    const key = `rl:dash:${clientAddressKey(this.config.appSecret, clientAddress)}:${windowOf(now).minute}`;
    return this.consumeWindow(key, DASHBOARD_REQUESTS_PER_MINUTE, now);
  }

  /** Counts `n` protocol messages of one MCP batch in the key's minute window (the window REST requests and tool calls
   * use; not the monthly quota); 429 `rate_limited` once the window is exceeded. Fails open while Redis is not
   * connected. */
  async consumeMessages(auth: AuthContext, n: number, now = Date.now()): Promise<RateLimitState | undefined> {
    if (n <= 0 || this.redis.status !== 'ready') return undefined;
    const { minute, reset } = windowOf(now);
    const key = `rl:${auth.keyId}:${minute}`;
    const [[, count]] = ((await this.redis.multi().incrby(key, n).expire(key, 61).exec()) ?? [[null, 0]]) as [unknown, number][];
    const limit = auth.plan.requests_per_minute;
    const state = { limit, remaining: Math.max(0, limit - Number(count)), reset };
    if (Number(count) > limit) {
      throw Object.assign(new ApiException('rate_limited', `Too many requests: this key may make ${limit} requests per minute (each message of an MCP batch counts)`, { retryAfter: reset, limit }), {
        rateLimit: state,
      });
    }
    return state;
  }

  /** Seconds until this address may try the queue dashboard's password again, or 0 when it may now (after
   * ADMIN_LOGIN_FAILURES_PER_MINUTE failures in the current minute). 0 while Redis is not connected. */
  async adminLoginBlockedFor(clientAddress: string | undefined, now = Date.now()): Promise<number> {
    if (this.redis.status !== 'ready') return 0;
    const failures = Number((await this.redis.get(this.adminFailKey(clientAddress, now)).catch(() => 0)) ?? 0);
    return failures >= ADMIN_LOGIN_FAILURES_PER_MINUTE ? windowOf(now).reset : 0;
  }

  /** Counts a failed queue dashboard login from this address. */
  async countFailedAdminLogin(clientAddress: string | undefined, now = Date.now()): Promise<void> {
    await this.consumeWindow(this.adminFailKey(clientAddress, now), ADMIN_LOGIN_FAILURES_PER_MINUTE, now).catch(() => undefined);
  }

  private adminFailKey(clientAddress: string | undefined, now: number): string {
    return `rl:adminfail:${clientAddressKey(this.config.appSecret, clientAddress)}:${windowOf(now).minute}`;
  }

  /** Counts an upload (`POST /v1/files`) against the workspace's own minute window; 429 `rate_limited` beyond
   * UPLOADS_PER_MINUTE. Fails open while Redis is not connected. */
  async consumeUpload(organizationId: string, now = Date.now()): Promise<void> {
    const state = await this.consumeWindow(`rl:uploads:${organizationId}:${windowOf(now).minute}`, UPLOADS_PER_MINUTE, now).catch(() => undefined);
    if (state?.exceeded) {
      throw new ApiException('rate_limited', `Too many uploads: a workspace may upload ${state.limit} files per minute`, { retryAfter: state.reset, limit: state.limit });
    }
  }

  private async consumeWindow(key: string, limit: number, now: number): Promise<(RateLimitState & { exceeded: boolean }) | undefined> {
    if (this.redis.status !== 'ready') return undefined;
    const [[, count]] = ((await this.redis.multi().incr(key).expire(key, 61).exec()) ?? [[null, 0]]) as [unknown, number][];
    return { limit, remaining: Math.max(0, limit - Number(count)), reset: windowOf(now).reset, exceeded: Number(count) > limit };
  }

  /** This client's anonymous window without counting (headers of responses no key was checked for). */
  async peekAnonymous(clientAddress: string | undefined, now = Date.now()): Promise<RateLimitState | undefined> {
    if (this.redis.status !== 'ready') return undefined;
    const { minute, reset } = windowOf(now);
    const count = Number((await this.redis.get(this.anonymousKey(clientAddress, minute))) ?? 0);
    const limit = ANONYMOUS_REQUESTS_PER_MINUTE;
    return { limit, remaining: Math.max(0, limit - count), reset };
  }

  private anonymousKey(clientAddress: string | undefined, minute: number): string {
    return `rl:anon:${clientAddressKey(this.config.appSecret, clientAddress)}:${minute}`;
  }
}
