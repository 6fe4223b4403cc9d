import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { WEBHOOKS_NOTIFY_CHANNEL } from './webhook-outbox';
import { WebhookDeliveryService } from './webhook-delivery.service';

/** The slice of node-postgres used here (pg ships without TypeScript types; it is MikroORM's own driver). */
interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', cb: (msg: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', cb: (err?: Error) => void): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('pg') as { Client: new (opts: { connectionString: string; application_name?: string }) => PgClient };

const SWEEP_BATCH = 1000;

/**
 * Worker-only: turns committed outbox rows into Bull jobs.
 * - LISTEN scanlink_webhooks: emit() NOTIFYs inside the emitting transaction; Postgres delivers it only on commit, so a
 *   job never points at an uncommitted (or rolled back) delivery and first attempts start within milliseconds.
 * - A sweeper every WEBHOOK_SWEEP_INTERVAL_MS enqueues deliveries that are due but were lost (NOTIFY missed while the
 *   listener reconnected, Redis restarted, a worker died holding a claim). Job ids make its duplicates no-ops.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private client: PgClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private sweeping = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly deliveries: WebhookDeliveryService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
    await this.sweep();
    this.timer = setInterval(() => void this.sweep(), this.config.webhookSweepIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.databaseUrl, application_name: 'scanlink-webhooks-listener' });
    client.on('notification', (msg) => {
      if (msg.channel !== WEBHOOKS_NOTIFY_CHANNEL || !msg.payload) return;
      const items = msg.payload.split(',').map((deliveryId) => ({ deliveryId, attempt: 1 }));
      this.deliveries.enqueue(items).catch((err: Error) => this.logger.warn(`enqueue after NOTIFY failed: ${err.message}`));
    });
    const reconnect = (err?: Error) => {
      if (this.stopped || this.client !== client) return;
      this.client = null;
      this.logger.warn(`webhook listener lost its connection${err ? `: ${err.message}` : ''}; reconnecting`);
      client.end().catch(() => undefined);
      // Deliveries committed while disconnected are picked up by the sweep that follows the reconnect.
      setTimeout(() => void this.listen().then(() => this.sweep()).catch(() => reconnect()), 1000).unref();
    };
    client.on('error', reconnect);
    client.on('end', reconnect);
    await client.connect();
    await client.query(`listen ${WEBHOOKS_NOTIFY_CHANNEL}`);
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }

  /** Enqueues every open delivery whose attempt has been due for a full sweep interval (younger ones are in flight). */
  async sweep(): Promise<number> {
    if (this.sweeping || this.stopped) return 0;
    this.sweeping = true;
    try {
      const rows = await this.orm.em.fork().execute<{ id: string; attempts: number }[]>(
        `select id, attempts from webhook_deliveries
          where status in ('pending', 'retrying') and next_attempt_at <= now() - (? * interval '1 millisecond')
          order by next_attempt_at limit ?`,
        [this.config.webhookSweepIntervalMs, SWEEP_BATCH],
      );
      await this.deliveries.enqueue(rows.map((r) => ({ deliveryId: r.id, attempt: r.attempts + 1 })));
      return rows.length;
    } catch (err) {
      this.logger.warn(`webhook sweep failed: ${(err as Error).message}`);
      return 0;
    } finally {
      this.sweeping = false;
    }
  }
}
