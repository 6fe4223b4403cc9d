import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { webhookDeliveries } from '../../common/metrics/metrics';
import { QUEUES } from '../../common/queue/queues';
import { organizationContact } from '../accounts/organizations.repository';
import { recordAudit } from '../audit/audit.repository';
import { EventsService } from '../events/events.service';
import { MailService } from '../mail/mail.service';
import { AttemptOutcome, DELIVERY_TIMEOUT_MS, WebhookSender } from './webhook-sender';
import { SecretBox, signatureHeader } from './webhook-signature';
import type { DeliveryStatus } from './webhook-delivery.entity';

export const MAX_ATTEMPTS = 7;
export const DELIVER_JOB = 'deliver';
/** A claimed attempt owns the row this long (longer than the 10 s timeout); a worker killed mid-attempt frees it then. */
export const CLAIM_LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** Tolerated clock difference between the process that scheduled an attempt and the database. */
const CLOCK_SKEW_MS = 2_000;
/** Event bodies kept by this process (an event fans out to every subscribed endpoint). */
const PAYLOAD_CACHE_ENTRIES = 2_000;

export interface DeliverJob {
  deliveryId: string;
  attempt: number;
}

interface ClaimedRow {
  id: string;
  organization_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  url: string;
  endpoint_status: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | string | null;
}

class AlreadyRecorded extends Error {}

/**
 * One delivery attempt, from claim to bookkeeping. Used by the worker's Bull processor and, for `POST
 * /webhooks/{id}/test`, by the API process itself, so the test goes through exactly the code path real events take.
 * The row in webhook_deliveries is the truth; a Bull job only says "look at delivery X, attempt N".
 */
@Injectable()
export class WebhookDeliveryService implements OnModuleDestroy {
  /** Set when the module is being destroyed: no new attempt is claimed (attempt()). */
  private closing = false;
  private readonly logger = new Logger(WebhookDeliveryService.name);
  private readonly sender: WebhookSender;
  private readonly box: SecretBox;
  private readonly payloads = new LRUCache<string, Promise<string>>({ max: PAYLOAD_CACHE_ENTRIES });

  constructor(
    private readonly orm: MikroORM,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectQueue(QUEUES.webhookDeliveries) private readonly queue: Queue<DeliverJob>,
    private readonly mail: MailService,
    private readonly events: EventsService,
  ) {
    this.sender = new WebhookSender(config.webhookAllowHosts);
    this.box = new SecretBox(config.appSecret);
  }

  get secrets(): SecretBox {
    return this.box;
  }

  /** Adds attempt jobs; ids `<delivery>:<attempt>` make a duplicate (NOTIFY + sweeper, two workers) a no-op. */
  async enqueue(items: Array<DeliverJob & { delayMs?: number }>): Promise<void> {
    if (items.length === 0) return;
    await this.queue.addBulk(
      items.map((i) => ({
        name: DELIVER_JOB,
        data: { deliveryId: i.deliveryId, attempt: i.attempt },
        opts: {
          jobId: `${i.deliveryId}:${i.attempt}`,
          delay: Math.max(0, i.delayMs ?? 0),
          attempts: 1,
          removeOnComplete: true,
          removeOnFail: true,
        },
      })),
    );
  }

  /** Runs attempt number `attempt` of a delivery if it is still due and nobody else holds it. Returns the delivery's
   * status afterwards, or null when there was nothing to do (already attempted, not due, finished). */
  async attempt(deliveryId: string, attempt: number, opts: { anyEndpointStatus?: boolean } = {}): Promise<DeliveryStatus | null> {
    // A process that is stopping claims nothing more: its HTTP client and mail transport are closing, and an attempt
    // it started now would fail here without reaching the receiver (and cost the delivery one of its attempts). The
    // row stays due; another worker's job or sweeper takes it.
    if (this.closing) return null;
    const em = this.orm.em.fork();
    const [row] = await em.execute<ClaimedRow[]>(
      `update webhook_deliveries d
          set next_attempt_at = now() + (? * interval '1 millisecond'), updated_at = now()
         from webhook_endpoints e
        where d.id = ? and d.attempts = ? and d.status in ('pending', 'retrying')
          and d.next_attempt_at <= now() + (? * interval '1 millisecond')
          and e.id = d.endpoint_id
      returning d.id, d.organization_id, d.endpoint_id, d.event_id, d.event_type, d.attempts, e.url,
                e.status as endpoint_status, e.secret_enc, e.previous_secret_enc, e.previous_secret_expires_at`,
      [CLAIM_LEASE_MS, deliveryId, attempt - 1, CLOCK_SKEW_MS],
    );
    if (!row) return null;
    if (row.endpoint_status !== 'enabled' && !opts.anyEndpointStatus) {
      await em.execute(
        `update webhook_deliveries set status = 'failed', error = ?, next_attempt_at = null, updated_at = now()
          where id = ? and attempts = ?`,
        [`Endpoint is ${row.endpoint_status}; delivery stopped`, row.id, row.attempts],
      );
      return 'failed';
    }
    const payload = await this.payload(em, row.event_id);
    const secrets = [this.box.open(row.secret_enc)];
    if (row.previous_secret_enc && row.previous_secret_expires_at && new Date(row.previous_secret_expires_at).getTime() > Date.now()) {
      secrets.push(this.box.open(row.previous_secret_enc));
    }
    const startedAt = new Date();
    const outcome = await this.sender.send(row.url, payload, {
      'scanlink-signature': signatureHeader(secrets, Math.floor(startedAt.getTime() / 1000), payload),
      'scanlink-event-id': row.event_id,
      'scanlink-event-type': row.event_type,
    });
    const status = await this.record(row, outcome, startedAt);
    if (status) webhookDeliveries.inc({ outcome: status });
    return status;
  }

  private async record(row: ClaimedRow, outcome: AttemptOutcome, startedAt: Date): Promise<DeliveryStatus | null> {
    const attempts = row.attempts + 1;
    if (outcome.ok) {
      // The common case in one round trip: record the success and clear the endpoint's failure streak if it had one.
      const [done] = await this.orm.em.fork().execute<{ n: string }[]>(
        `with d as (
           update webhook_deliveries
              set attempts = ?, status = 'succeeded', status_code = ?, response_body = ?, latency_ms = ?, error = null,
                  next_attempt_at = null, updated_at = now()
            where id = ? and attempts = ? returning endpoint_id
         ), e as (
           update webhook_endpoints ep set consecutive_failures = 0, failing_since = null from d
            where ep.id = d.endpoint_id and (ep.consecutive_failures <> 0 or ep.failing_since is not null) returning 1
         )
         select (select count(*) from d) as n, (select count(*) from e) as e`,
        [attempts, outcome.statusCode, outcome.responseBody, outcome.latencyMs, row.id, row.attempts],
      );
      return Number(done?.n) > 0 ? 'succeeded' : null;
    }
    let result: { status: DeliveryStatus; nextAttemptAt: Date | null; disabled: 'gone' | 'sustained_failures' | null };
    try {
      result = await this.orm.em.fork().transactional(async (tx) => {
        let disabled: 'gone' | 'sustained_failures' | null = null;
        // A failed attempt: extend the endpoint's failure streak and decide whether the endpoint goes off.
        const [ep] = await tx.execute<{ status: string; consecutive_failures: number; failing_since: Date | string }[]>(
          `update webhook_endpoints
              set consecutive_failures = consecutive_failures + 1, failing_since = coalesce(failing_since, ?)
            where id = ? returning status, consecutive_failures, failing_since`,
          [startedAt, row.endpoint_id],
        );
        let endpointEnabled = ep?.status === 'enabled';
        if (ep && endpointEnabled) {
          const spanMs = Date.now() - new Date(ep.failing_since).getTime();
          if (outcome.statusCode === 410) disabled = 'gone';
          else if (
            ep.consecutive_failures >= this.config.webhookAutoDisableFailures &&
            spanMs >= this.config.webhookAutoDisableHours * 3_600_000
          ) {
            disabled = 'sustained_failures';
          }
          if (disabled) {
            const status = disabled === 'gone' ? 'disabled' : 'auto_disabled';
            const off = await tx.execute<{ organization_id: string; disabled_reason: string | null }[]>(
              `update webhook_endpoints ep set status = ?, disabled_reason = ?, updated_at = now()
                 from webhook_endpoints old
                where ep.id = ? and ep.status = 'enabled' and old.id = ep.id
                returning ep.organization_id, old.disabled_reason`,
              [status, disabled, row.endpoint_id],
            );
            // The worker turned the endpoint off: the audit log says so (actor `system`), in the same transaction.
            if (off[0]) {
              await recordAudit(tx, {
                organizationId: off[0].organization_id,
                action: 'webhook_endpoint.updated',
                resource: { type: 'webhook_endpoint', id: row.endpoint_id },
                changes: { status: ['enabled', status], disabled_reason: [off[0].disabled_reason, disabled] },
              });
            }
            endpointEnabled = false;
          }
        }
        const status: DeliveryStatus =
          !endpointEnabled || attempts >= MAX_ATTEMPTS || outcome.statusCode === 410 ? 'failed' : 'retrying';
        const nextAttemptAt = status === 'retrying' ? new Date(Date.now() + this.retryDelayMs(attempts)) : null;
        const updated = await tx.execute<{ id: string }[]>(
          `update webhook_deliveries
              set attempts = ?, status = ?, status_code = ?, response_body = ?, latency_ms = ?, error = ?,
                  next_attempt_at = ?, updated_at = now()
            where id = ? and attempts = ? returning id`,
          [attempts, status, outcome.statusCode, outcome.responseBody, outcome.latencyMs, outcome.error, nextAttemptAt, row.id, row.attempts],
        );
        // Another runner recorded this attempt first (a lease expired under a very slow attempt): keep its bookkeeping.
        if (updated.length === 0) throw new AlreadyRecorded();
        if (disabled) {
          // The endpoint is off: its other open deliveries stop now instead of waiting for their next attempt.
          await tx.execute(
            `update webhook_deliveries set status = 'failed', error = ?, next_attempt_at = null, updated_at = now()
              where endpoint_id = ? and status in ('pending', 'retrying')`,
            [disabled === 'gone' ? 'Endpoint disabled: the receiver answered 410 Gone' : 'Endpoint auto-disabled after sustained failures', row.endpoint_id],
          );
        }
        return { status, nextAttemptAt, disabled };
      });
    } catch (err) {
      if (err instanceof AlreadyRecorded) return null;
      throw err;
    }
    if (result.status === 'retrying' && result.nextAttemptAt) {
      // If Redis is unavailable the sweeper enqueues it later from the row.
      await this.enqueue([{ deliveryId: row.id, attempt: attempts + 1, delayMs: result.nextAttemptAt.getTime() - Date.now() }]).catch(
        (err: Error) => this.logger.warn(`could not enqueue retry of ${row.id}: ${err.message}`),
      );
    }
    if (result.disabled === 'sustained_failures') await this.notifyOwner(row.endpoint_id);
    return result.status;
  }

  /** The event's stored body, from the events module; bodies never change, so the fan-out to many endpoints reads it
   * once. */
  private payload(em: EntityManager, eventId: string): Promise<string> {
    let payload = this.payloads.get(eventId);
    if (payload === undefined) {
      // The promise is cached, so the attempts of one event running at once share a single read.
      payload = this.events.payload(em, eventId).then((p) => p ?? '');
      payload.catch(() => this.payloads.delete(eventId));
      this.payloads.set(eventId, payload);
    }
    return payload;
  }

  /** Delay before attempt `attempts + 1`: the schedule of docs/webhooks.md (1 min, 5 min, 30 min, 2 h, 6 h, 24 h). */
  retryDelayMs(attempts: number): number {
    const delays = this.config.webhookRetryDelaysMs;
    return delays[Math.min(attempts - 1, delays.length - 1)] ?? 60_000;
  }

  private async notifyOwner(endpointId: string): Promise<void> {
    try {
      const em = this.orm.em.fork();
      const [info] = await em.execute<{ organization_id: string; url: string; consecutive_failures: number; failing_since: Date }[]>(
        `select organization_id, url, consecutive_failures, failing_since from webhook_endpoints where id = ?`,
        [endpointId],
      );
      const owner = info && (await organizationContact(em, info.organization_id));
      if (!info || !owner) return;
      await this.mail.send({
        to: owner.ownerEmail,
        subject: 'Scanlink: a webhook endpoint was disabled after repeated failures',
        text: [
          `Hello,`,
          ``,
          `Scanlink disabled the webhook endpoint ${endpointId} of the workspace "${owner.name}":`,
          `  URL: ${info.url}`,
          `  Consecutive failed deliveries: ${info.consecutive_failures}`,
          `  Failing since: ${new Date(info.failing_since).toISOString()}`,
          ``,
          `Pending retries for this endpoint were stopped and new events are no longer sent to it.`,
          `When the receiver works again, re-enable it with PATCH /v1/webhooks/${endpointId} {"status": "enabled"}`,
          `(the failure count resets to zero). Past deliveries: GET /v1/webhooks/${endpointId}/deliveries.`,
          ``,
          `— Scanlink`,
        ].join('\n'),
      });
    } catch (err) {
      this.logger.error(`could not e-mail the owner about endpoint ${endpointId}: ${(err as Error).message}`);
    }
  }

  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    await this.sender.close().catch(() => undefined);
  }
}
