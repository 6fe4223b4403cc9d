import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../common/ids';

export const EVENT_TYPES = [
  'qr.created',
  'qr.updated',
  'qr.deleted',
  'qr.restored',
  'qr.scanned',
  'batch.completed',
  'batch.failed',
  'lead.captured',
  'ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(s: unknown): s is EventType {
  return typeof s === 'string' && (EVENT_TYPES as readonly string[]).includes(s);
}

/** Postgres NOTIFY channel: the payload is the comma-separated ids of deliveries that became due. NOTIFY is delivered
 * only when the emitting transaction commits, which is exactly the "after commit" moment the outbox needs. */
export const WEBHOOKS_NOTIFY_CHANNEL = 'scanlink_webhooks';

/** The delivery body: exactly these fields, serialized once and stored, so every attempt sends identical bytes. */
export interface EventEnvelope {
  id: string;
  object: 'event';
  type: EventType;
  created_at: string;
  data: object;
}

/**
 * Writes an event and its deliveries (the outbox) with the caller's EntityManager, i.e. inside the caller's
 * transaction: if the change rolls back, so does the event. Nothing is written when no enabled endpoint of the
 * workspace subscribes to the type (spec delivery rule 9), and that check is a single probe of a partial index.
 */
export async function recordEvent(
  em: EntityManager,
  organizationId: string,
  type: EventType,
  data: object,
  endpointIds: string[] | null,
  opts: { notify?: boolean } = {},
): Promise<{ eventId: string; deliveryIds: string[] } | null> {
  const endpoints =
    endpointIds ??
    (
      await em.execute<{ id: string }[]>(
        `select id from webhook_endpoints where organization_id = ? and status = 'enabled' and events && array[?, '*']::text[]`,
        [organizationId, type],
      )
    ).map((r) => r.id);
  if (endpoints.length === 0) return null;
  const eventId = newId('evt');
  const now = new Date();
  const envelope: EventEnvelope = { id: eventId, object: 'event', type, created_at: now.toISOString(), data };
  const payload = JSON.stringify(envelope);
  const deliveryIds = endpoints.map(() => newId('wd'));
  const rows = deliveryIds.map(() => `(?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`).join(', ');
  const params: unknown[] = [eventId, organizationId, type, payload, now];
  deliveryIds.forEach((id, i) => params.push(id, organizationId, endpoints[i], eventId, type, now, now, now));
  const notify = opts.notify ?? true;
  if (notify) params.push(WEBHOOKS_NOTIFY_CHANNEL);
  // One statement: the event, its deliveries, and the NOTIFY that wakes the workers once this transaction commits.
  await em.execute(
    `with ev as (
       insert into events (id, organization_id, type, payload, created_at) values (?, ?, ?, ?, ?) returning id
     ), d as (
       insert into webhook_deliveries
         (id, organization_id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
       values ${rows} returning id
     )
     select ${notify ? `pg_notify(?, (select string_agg(id, ',') from d))` : `(select count(*) from d)`} as n,
            (select count(*) from ev) as e`,
    params,
  );
  return { eventId, deliveryIds };
}

@Injectable()
export class EventsService {
  /**
   * Records `type` for the workspace's subscribed, enabled endpoints inside the caller's transaction and returns the
   * `evt_…` id, or null when nobody subscribes (nothing is written then). Call it with the transactional EM:
   * `em.transactional(async (em) => { …change…; await events.emit(em, orgId, 'qr.updated', presented) })`.
   */
  async emit(em: EntityManager, organizationId: string, type: EventType, data: object): Promise<string | null> {
    const recorded = await recordEvent(em, organizationId, type, data, null);
    return recorded?.eventId ?? null;
  }
}
