import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import { REDIS } from '../../common/redis/redis.provider';
import { HealthDto } from './health.dto';

/** 'ok', or `error: <reason>` when the check threw or took longer than `timeoutMs`. */
async function check(fn: () => Promise<unknown>, timeoutMs = 2000): Promise<string> {
  try {
    await Promise.race([fn(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref())]);
    return 'ok';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

/** Whether this process' dependencies (PostgreSQL, Redis) answer. */
@Injectable()
export class HealthService {
  constructor(
    private readonly em: EntityManager,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async check(): Promise<HealthDto> {
    const [postgres, redis] = await Promise.all([
      check(() => this.em.getConnection().execute('select 1')),
      check(() => this.redis.ping()),
    ]);
    const ok = postgres === 'ok' && redis === 'ok';
    return { status: ok ? 'ok' : 'degraded', checks: { postgres, redis } };
  }
}
