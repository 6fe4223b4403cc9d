import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../common/ids';
import { type EventOwner, type EventSubscriber, ownerKey, type RecordedEvent } from '../events/event-subscriber';
import type { EventType } from '../events/event-types';

/** Postgres NOTIFY channel: the payload is the comma-separated ids of deliveries that became due. NOTIFY is delivered
 * only when the emitting transaction commits, which is exactly the "after commit" moment the outbox needs. */
export const WEBHOOKS_NOTIFY_CHANNEL = 'scanlink_webhooks';
/** Delivery ids per NOTIFY (a payload must stay under Postgres's 8000 bytes; an id is about 23). */
const IDS_PER_NOTIFY = 200;

/** The given (workspace, environment) pairs with an enabled endpoint of that environment subscribed to the type (or
 * '*'), with those endpoint ids: a test-mode event never reaches a live endpoint, nor the other way round. */
const LISTENERS_SQL = `
select organization_id, environment, array_agg(id order by id) as ids
  from webhook_endpoints
 where (organization_id, environment) in (select o.organization_id, o.environment
                                            from jsonb_to_recordset(?::jsonb) as o(organization_id text, environment text))
   and status = 'enabled' and events && array[?, '*']::text[]
 group by organization_id, environment`;

/**
 * Webhooks as an event subscriber: the endpoints that listen to an event, and one delivery row per (event, endpoint)
 * written in the emitting transaction, with the NOTIFY that wakes the workers once it commits (webhook-dispatcher.ts).
 */
@Injectable()
export class WebhookOutbox implements EventSubscriber<string[]> {
  async listeners(em: EntityManager, owners: readonly EventOwner[], type: EventType): Promise<ReadonlyMap<string, string[]>> {
    const input = owners.map((o) => ({ organization_id: o.organizationId, environment: o.environment }));
    const rows = await em.execute<{ organization_id: string; environment: EventOwner['environment']; ids: string[] }[]>(LISTENERS_SQL, [JSON.stringify(input), type]);
    return new Map(rows.map((r) => [ownerKey({ organizationId: r.organization_id, environment: r.environment }), r.ids]));
  }

  async record(em: EntityManager, events: ReadonlyArray<{ event: RecordedEvent; listener: string[] }>): Promise<void> {
    await this.addDeliveries(em, events);
  }

  /**
   * Writes a pending delivery of each event to each of its endpoints and returns their ids. `wake: false` sends no
   * NOTIFY: the caller attempts the delivery itself (the test ping), or the sweeper finds it.
   */
  async addDeliveries(em: EntityManager, events: ReadonlyArray<{ event: RecordedEvent; listener: string[] }>, opts: { wake?: boolean } = {}): Promise<string[]> {
    const now = new Date();
    const params: unknown[] = [];
    const ids: string[] = [];
    for (const { event, listener } of events) {
      for (const endpointId of listener) {
        const id = newId('wd');
        ids.push(id);
        params.push(id, event.organizationId, endpointId, event.id, event.type, now, now, now);
      }
    }
    if (ids.length === 0) return ids;
    const rows = ids.map(() => `(?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`).join(', ');
    const wake = opts.wake ?? true;
    // One statement: the deliveries and the NOTIFY (in chunks) that wakes the workers once this transaction commits.
    await em.execute(
      `with d as (
         insert into webhook_deliveries
           (id, organization_id, endpoint_id, event_id, event_type, status, attempts, next_attempt_at, created_at, updated_at)
         values ${rows} returning id
       )
       ${
         wake
           ? `select count(pg_notify('${WEBHOOKS_NOTIFY_CHANNEL}', ids)) as n from (
                select string_agg(id, ',') as ids from (select id, (row_number() over ()) / ${IDS_PER_NOTIFY} as g from d) x group by g
              ) y`
           : `select count(*) as n from d`
       }`,
      params,
    );
    return ids;
  }
}
