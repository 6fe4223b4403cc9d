import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import IORedis, { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../config/config';

export const REDIS = Symbol('REDIS');

export function createRedis(url: string, name: string): Redis {
  return new IORedis(url, { connectionName: `scanlink:${name}`, maxRetriesPerRequest: 3, enableReadyCheck: true });
}

/** Closes the shared Redis client when the application stops. */
@Injectable()
export class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

export const redisProvider = {
  provide: REDIS,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => createRedis(config.redisUrl, 'shared'),
};
