import { Inject, Injectable } from '@nestjs/common';
import { EntityManager, LockMode } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import { ListEnvelope } from '../../common/http/list';
import { pageByCreatedAt } from '../../common/http/pagination';
import { hasPrefix } from '../../common/ids';
import { EventsService } from '../events/events.service';
import { WebhookDelivery } from './webhook-delivery.entity';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { EndpointSource, WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookOutbox } from './webhook-outbox';
import { newWebhookSecret } from './webhook-signature';
import { HostLookup, systemLookup, validateWebhookUrl } from './webhook-url';
import type {
  CreatedWebhookEndpointDto,
  CreateWebhookDto,
  DeletedWebhookEndpointDto,
  ListDeliveriesQueryDto,
  ListWebhooksQueryDto,
  UpdateWebhookDto,
  WebhookDeliveryDto,
  WebhookEndpointDto,
  WebhookSecretDto,
} from './webhooks.dto';

/** 10 endpoints registered directly, 50 per integration platform (docs/webhooks.md). */
export const ENDPOINT_LIMITS: Record<EndpointSource, number> = { api: 10, zapier: 50, make: 50, n8n: 50 };
/** The old secret keeps signing for 24 hours after a rotation (docs/webhooks.md). */
export const ROTATION_GRACE_MS = 24 * 3_600_000;

export function presentEndpoint(e: WebhookEndpoint): WebhookEndpointDto {
  return {
    id: e.id,
    object: 'webhook_endpoint' as const,
    url: e.url,
    description: e.description,
    events: e.events,
    status: e.status,
    disabled_reason: e.disabledReason,
    source: e.source,
    consecutive_failures: e.consecutiveFailures,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export function presentDelivery(d: WebhookDelivery): WebhookDeliveryDto {
  return {
    id: d.id,
    object: 'webhook_delivery' as const,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    status_code: d.statusCode,
    response_body: d.responseBody,
    latency_ms: d.latencyMs,
    error: d.error,
    next_attempt_at: d.nextAttemptAt ? d.nextAttemptAt.toISOString() : null,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}

/** `["*"]` absorbs everything else; duplicates go; order of first appearance is kept. */
function normalizeEvents(events: string[]): string[] {
  return events.includes('*') ? ['*'] : [...new Set(events)];
}

@Injectable()
export class WebhooksService {
  /** DNS resolution used by the creation-time URL check (replaceable in tests). */
  lookup: HostLookup = systemLookup;

  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    private readonly deliveries: WebhookDeliveryService,
    private readonly events: EventsService,
    private readonly outbox: WebhookOutbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** With `lock` (inside a transaction) the row is locked and read afresh: changes of one endpoint apply in turn. */
  private async find(auth: AuthContext, id: string, em: EntityManager = this.em, lock = false): Promise<WebhookEndpoint> {
    const where = { id, organizationId: auth.organizationId, environment: auth.environment };
    const endpoint = hasPrefix(id, 'we') ? await em.findOne(WebhookEndpoint, where, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {}) : null;
    if (!endpoint) throw ApiException.notFound('webhook endpoint', id);
    return endpoint;
  }

  async create(auth: AuthContext, dto: CreateWebhookDto): Promise<CreatedWebhookEndpointDto> {
    const url = await validateWebhookUrl(dto.url, this.config.webhookAllowHosts, this.lookup);
    const source = dto.source ?? 'api';
    const secret = newWebhookSecret();
    const endpoint = await this.em.transactional(async (em) => {
      // Serializes concurrent creations for one (workspace, source), so the limit cannot be overshot by a race.
      await em.execute('select pg_advisory_xact_lock(hashtext(?))', [`webhooks:${auth.organizationId}:${source}`]);
      const current = await em.count(WebhookEndpoint, { organizationId: auth.organizationId, source });
      const limit = ENDPOINT_LIMITS[source];
      if (current >= limit) {
        throw new ApiException(
          'plan_limit_reached',
          source === 'api'
            ? `A workspace can register ${limit} webhook endpoints directly; ${current} exist`
            : `A workspace can have ${limit} webhook endpoints registered through ${source}; ${current} exist`,
          { limit, current_count: current, requested: 1, plan_id: auth.plan.id },
        );
      }
      const e = em.create(WebhookEndpoint, {
        organizationId: auth.organizationId,
        environment: auth.environment,
        url,
        description: dto.description ?? null,
        events: normalizeEvents(dto.events),
        source,
        secretEnc: this.deliveries.secrets.seal(secret),
      });
      await em.flush();
      return e;
    });
    return { ...presentEndpoint(endpoint), secret };
  }

  list(auth: AuthContext, query: ListWebhooksQueryDto): Promise<ListEnvelope<WebhookEndpointDto>> {
    return pageByCreatedAt(this.em, WebhookEndpoint, { organizationId: auth.organizationId, environment: auth.environment }, { ...query }, this.cursors, presentEndpoint);
  }

  async retrieve(auth: AuthContext, id: string): Promise<WebhookEndpointDto> {
    return presentEndpoint(await this.find(auth, id));
  }

  async update(auth: AuthContext, id: string, dto: UpdateWebhookDto): Promise<WebhookEndpointDto> {
    const url = dto.url !== undefined ? await validateWebhookUrl(dto.url, this.config.webhookAllowHosts, this.lookup) : undefined;
    const endpoint = await this.em.transactional(async (em) => {
      const e = await this.find(auth, id, em);
      let changed = false;
      if (url !== undefined && url !== e.url) {
        e.url = url;
        changed = true;
      }
      if (dto.events !== undefined) {
        e.events = normalizeEvents(dto.events);
        changed = true;
      }
      if (dto.description !== undefined && dto.description !== e.description) {
        e.description = dto.description;
        changed = true;
      }
      let stopOpenDeliveries = false;
      if (dto.status === 'enabled' && e.status !== 'enabled') {
        e.status = 'enabled';
        e.disabledReason = null;
        e.consecutiveFailures = 0;
        e.failingSince = null;
        changed = true;
      } else if (dto.status === 'disabled' && e.status !== 'disabled') {
        e.status = 'disabled';
        e.disabledReason = 'manual';
        stopOpenDeliveries = true;
        changed = true;
      }
      if (changed) e.updatedAt = new Date();
      await em.flush();
      if (stopOpenDeliveries) {
        await em.execute(
          `update webhook_deliveries set status = 'failed', error = 'Endpoint disabled; delivery stopped', next_attempt_at = null,
                  updated_at = now() where endpoint_id = ? and status in ('pending', 'retrying')`,
          [e.id],
        );
      }
      return e;
    });
    return presentEndpoint(endpoint);
  }

  async remove(auth: AuthContext, id: string): Promise<DeletedWebhookEndpointDto> {
    const endpoint = await this.find(auth, id);
    // Its delivery records go with it (on delete cascade); archived events stay until their 30 days are over. Removed
    // through the unit of work, so the audit log records the deletion in the same transaction.
    this.em.remove(endpoint);
    await this.em.flush();
    return { id: endpoint.id, object: 'webhook_endpoint' as const, deleted: true as const };
  }

  async rotateSecret(auth: AuthContext, id: string): Promise<WebhookSecretDto> {
    const secret = newWebhookSecret();
    const endpoint = await this.em.transactional(async (em) => {
      // Locked: rotations sent at once apply one after the other, so the secret each answers is the signing one when
      // it is answered (the last answered signs, the one before it for the grace period).
      const e = await this.find(auth, id, em, true);
      // Only two secrets sign at a time: rotating again inside the window drops the oldest one.
      e.previousSecretEnc = e.secretEnc;
      e.previousSecretExpiresAt = new Date(Date.now() + ROTATION_GRACE_MS);
      e.secretEnc = this.deliveries.secrets.seal(secret);
      e.updatedAt = new Date();
      await em.flush();
      return e;
    });
    return {
      id: endpoint.id,
      object: 'webhook_endpoint_secret' as const,
      secret,
      previous_secret_expires_at: endpoint.previousSecretExpiresAt!.toISOString(),
    };
  }

  /** Sends a `ping` through the real pipeline: an archived event, a delivery row, and the attempt made right here with
   * the worker's delivery code. A failed ping is retried on the normal schedule while the endpoint is enabled. */
  async test(auth: AuthContext, id: string): Promise<WebhookDeliveryDto> {
    try {
      return await this.ping(auth, id);
    } catch (err) {
      if (err instanceof ApiException) throw err;
      // The endpoint was deleted while the ping was made (its delivery rows go with it, and a new one is refused by
      // its foreign key): the 404 a moment later would get.
      const still = await this.em.fork().findOne(WebhookEndpoint, { id, organizationId: auth.organizationId, environment: auth.environment });
      if (!still) throw ApiException.notFound('webhook endpoint', id);
      throw err;
    }
  }

  private async ping(auth: AuthContext, id: string): Promise<WebhookDeliveryDto> {
    const endpoint = await this.find(auth, id);
    const [deliveryId] = await this.em.transactional(async (em) => {
      const event = await this.events.record(em, endpoint, 'ping', { webhook_endpoint_id: endpoint.id });
      return this.outbox.addDeliveries(em, [{ event, listener: [endpoint.id] }], { wake: false });
    });
    await this.deliveries.attempt(deliveryId, 1, { anyEndpointStatus: true });
    // Gone with its endpoint when a DELETE of the endpoint committed meanwhile: the endpoint is not there any more.
    const delivery = await this.em.fork().findOne(WebhookDelivery, { id: deliveryId });
    if (!delivery) throw ApiException.notFound('webhook endpoint', id);
    return presentDelivery(delivery);
  }

  async listDeliveries(auth: AuthContext, id: string, query: ListDeliveriesQueryDto): Promise<ListEnvelope<WebhookDeliveryDto>> {
    const endpoint = await this.find(auth, id);
    const where = { organizationId: auth.organizationId, endpointId: endpoint.id, ...(query.status ? { status: query.status } : {}) };
    return pageByCreatedAt(this.em, WebhookDelivery, where as never, { ...query, endpoint: endpoint.id }, this.cursors, presentDelivery);
  }
}
