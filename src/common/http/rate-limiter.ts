import { Inject, Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { ApiException } from '../errors/api.exception';
import { REDIS } from '../redis/redis.provider';
import type { AuthContext } from '../auth/auth-context';

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** seconds until the window resets */
  reset: number;
}

/** Fixed one-minute windows per key in Redis (one round trip per request), plus the free plan's monthly quota per
 * workspace (calendar month, UTC). */
@Injectable()
export class RateLimiter {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async consume(auth: AuthContext, now = Date.now()): Promise<RateLimitState> {
    const minute = Math.floor(now / 60_000);
    const reset = 60 - Math.floor((now % 60_000) / 1000);
    const rlKey = `rl:${auth.keyId}:${minute}`;
    const monthly = auth.plan.monthly_requests;
    const d = new Date(now);
    const monthKey = `quota:${auth.organizationId}:${d.getUTCFullYear()}-${d.getUTCMonth() + 1}`;
    const pipeline = this.redis.multi().incr(rlKey).expire(rlKey, 61);
    if (monthly !== null) pipeline.incr(monthKey).expire(monthKey, 32 * 86_400);
    const results = (await pipeline.exec()) ?? [];
    const count = Number(results[0]?.[1] ?? 0);
    const limit = auth.plan.requests_per_minute;
    const state = { limit, remaining: Math.max(0, limit - count), reset };
    if (monthly !== null) {
      const used = Number(results[2]?.[1] ?? 0);
      if (used > monthly) {
        const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
        throw Object.assign(
          new ApiException('quota_exceeded', `The ${auth.plan.id} plan includes ${monthly} API requests per calendar month (UTC); the quota is used up`, {
            limit: monthly,
            current_count: used - 1,
            plan_id: auth.plan.id,
            retryAfter: Math.ceil((nextMonth - now) / 1000),
          }),
          { rateLimit: state },
        );
      }
    }
    if (count > limit) {
      throw Object.assign(
        new ApiException('rate_limited', `Too many requests: this key may make ${limit} requests per minute`, { retryAfter: reset, limit }),
        { rateLimit: state },
      );
    }
    return state;
  }
}
