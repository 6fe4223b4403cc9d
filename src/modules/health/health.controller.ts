import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { EntityManager } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { FastifyReply } from 'fastify';
import { Public } from '../../common/auth/decorators';
import { REDIS } from '../../common/redis/redis.provider';

async function check(fn: () => Promise<unknown>, timeoutMs = 2000): Promise<'ok' | string> {
  try {
    await Promise.race([fn(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref())]);
    return 'ok';
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

/** `GET /health` on the api and scan processes: 200 when PostgreSQL and Redis answer, else 503. */
@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly em: EntityManager,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  @Get()
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness and dependency check (no authentication)' })
  async health(@Res({ passthrough: true }) reply: FastifyReply) {
    const [postgres, redis] = await Promise.all([
      check(() => this.em.getConnection().execute('select 1')),
      check(() => this.redis.ping()),
    ]);
    const ok = postgres === 'ok' && redis === 'ok';
    if (!ok) void reply.status(503);
    return { status: ok ? 'ok' : 'degraded', checks: { postgres, redis } };
  }
}
