import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { CHANNELS } from '../../common/queue/channels';
import { createRedis, REDIS } from '../../common/redis/redis.provider';
import type { QrCode } from './qr-code.entity';

/** How long a change waits for the scan processes to confirm that they dropped the code. */
export const INVALIDATION_ACK_TIMEOUT_MS = 2_000;

/** Acknowledgements counted so far, and how many PUBLISH reported (undefined until it answered). */
type Waiter = { acks: number; expected?: number; done: () => void };

/**
 * Tells every scan process that a code changed (CHANNELS.qrInvalidate) and waits until each has dropped it from its
 * caches. Redis's answer to PUBLISH can reach this process before the message reaches a subscriber, so an API answer
 * sent right after it could be followed by a scan that still finds the old code. Each message carries an `ack` token;
 * every scan process publishes it on CHANNELS.qrInvalidated once the code is gone from its LRU and from the shared
 * Redis copy, and the change waits for as many acknowledgements as PUBLISH reported receivers (at most
 * INVALIDATION_ACK_TIMEOUT_MS, then it is answered anyway and a warning is logged).
 */
@Injectable()
export class ScanCacheInvalidator implements OnApplicationShutdown {
  private readonly logger = new Logger('ScanCacheInvalidator');
  private readonly waiting = new Map<string, Waiter>();
  private subscriber?: Redis;
  private subscribed?: Promise<boolean>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /**
   * Publishes the invalidation of a dynamic code and resolves once every scan process dropped it. Never rejects: a
   * failed publish is logged (the cache TTL still bounds how long an old copy lives). While Redis is unreachable
   * nothing is awaited: the scan processes' subscriptions are down too, and each empties its cache when it
   * subscribes again.
   */
  async invalidate(code: Pick<QrCode, 'id' | 'shortCode' | 'domainId' | 'kind' | 'gs1Key'>): Promise<void> {
    if (code.kind !== 'dynamic') return;
    const message = { id: code.id, short_code: code.shortCode, domain_id: code.domainId, gs1_key: code.gs1Key };
    // Without the acknowledgement subscription (not opened, or reconnecting) the acknowledgements would be lost.
    if (this.redis.status !== 'ready' || !(await this.subscribe()) || this.subscriber?.status !== 'ready') {
      await this.publish(JSON.stringify(message));
      return;
    }
    const ack = randomBytes(12).toString('base64url');
    let done!: () => void;
    const acknowledged = new Promise<void>((resolve) => (done = resolve));
    const waiter: Waiter = { acks: 0, done };
    this.waiting.set(ack, waiter); // before publishing: an acknowledgement may arrive before PUBLISH's answer
    let timer: NodeJS.Timeout | undefined;
    try {
      const receivers = await this.publish(JSON.stringify({ ...message, ack }));
      waiter.expected = receivers;
      if (waiter.acks >= receivers) return;
      const timedOut = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), INVALIDATION_ACK_TIMEOUT_MS)));
      if ((await Promise.race([acknowledged, timedOut])) === true) {
        this.logger.warn(`cache invalidation of ${code.id}: ${receivers - waiter.acks} of ${receivers} scan processes did not confirm within ${INVALIDATION_ACK_TIMEOUT_MS} ms`);
      }
    } finally {
      clearTimeout(timer);
      this.waiting.delete(ack);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    for (const w of this.waiting.values()) w.done();
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  /** The number of receivers, 0 when the publish failed (logged). */
  private publish(message: string): Promise<number> {
    return this.redis.publish(CHANNELS.qrInvalidate, message).catch((err: Error) => {
      this.logger.warn(`cache invalidation publish failed: ${err.message}`);
      return 0;
    });
  }

  /** The acknowledgement subscription, opened on first use; false when it cannot be opened (then nothing waits). */
  private subscribe(): Promise<boolean> {
    this.subscribed ??= (async () => {
      const sub = createRedis(this.config.redisUrl, 'invalidation-acks', (m) => this.logger.warn(m));
      this.subscriber = sub;
      sub.on('message', (_channel: string, ack: string) => this.onAck(ack));
      try {
        await sub.subscribe(CHANNELS.qrInvalidated);
        return true;
      } catch (err) {
        this.logger.warn(`invalidation acknowledgements unavailable: ${(err as Error).message}`);
        this.subscribed = undefined;
        sub.disconnect();
        return false;
      }
    })();
    return this.subscribed;
  }

  private onAck(ack: string): void {
    const waiter = this.waiting.get(ack);
    if (!waiter) return;
    waiter.acks += 1;
    if (waiter.expected !== undefined && waiter.acks >= waiter.expected) waiter.done();
  }
}
