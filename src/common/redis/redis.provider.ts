import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import IORedis, { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../config/config';

export const REDIS = Symbol('REDIS');

/** A client that reconnects by itself. A lost connection is logged once per outage (ioredis would otherwise print an
 * "Unhandled error event" on every reconnect attempt); commands issued meanwhile fail and their callers report it. */
export function createRedis(url: string, name: string, warn: (message: string) => void = (m) => new Logger('Redis').warn(m)): Redis {
  const client = new IORedis(url, { connectionName: `scanlink:${name}`, maxRetriesPerRequest: 3, enableReadyCheck: true });
  let reported = false;
  client.on('error', (err: Error) => {
    if (!reported) warn(`${name} connection: ${err.message}; reconnecting`);
    reported = true;
  });
  client.on('ready', () => (reported = false));
  return client;
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
