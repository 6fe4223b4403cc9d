import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import { REDIS } from '../../common/redis/redis.provider';
import { HealthDto } from './health.dto';

/** 'ok', or 'error' when the check threw or took longer than `timeoutMs`. The answer names the failing dependency
 * (its key) and never the error's text, which could carry a host name, a user or a driver message; the driver logs
 * its own connection errors for the operator. */
async function check(fn: () => Promise<string | void>, timeoutMs = 2000): Promise<string> {
  try {
    const result = await Promise.race([fn(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref())]);
    return typeof result === 'string' ? result : 'ok';
  } catch {
    return 'error';
  }
}

/** Whether this process' dependencies (PostgreSQL, Redis) answer and its migrations are applied (readiness). */
@Injectable()
export class HealthService {
  /** Once every migration this build knows is applied it stays so (a newer build's migrations are not ours to wait for). */
  private migrated = false;

  constructor(
    private readonly orm: MikroORM,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async check(): Promise<HealthDto> {
    const [postgres, redis, migrations] = await Promise.all([
      check(() => this.orm.em.getConnection().execute('select 1').then(() => undefined)),
      check(() => this.redis.ping().then(() => undefined)),
      check(() => this.pendingMigrations()),
    ]);
    const ok = postgres === 'ok' && redis === 'ok' && migrations === 'ok';
    return { status: ok ? 'ok' : 'degraded', checks: { postgres, redis, migrations } };
  }

  /** 'ok' or `pending: <n>`, from the migrations table (read only: the check never creates it). */
  private async pendingMigrations(): Promise<string> {
    if (this.migrated) return 'ok';
    const known = (this.orm.config.get('migrations').migrationsList ?? []).map((m) => m.name);
    const [{ exists }] = await this.orm.em.getConnection().execute<{ exists: boolean }[]>(`select to_regclass('mikro_orm_migrations') is not null as exists`);
    const applied = exists ? new Set((await this.orm.em.getConnection().execute<{ name: string }[]>('select name from mikro_orm_migrations')).map((r) => r.name)) : new Set<string>();
    const pending = known.filter((name) => !applied.has(name) && !applied.has(`${name}.ts`) && !applied.has(`${name}.js`)).length;
    if (pending > 0) return `pending: ${pending}`;
    this.migrated = true;
    return 'ok';
  }
}
