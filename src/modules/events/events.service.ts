import { creationChanges, recordAudit } from '../audit/audit.repository';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../common/ids';
import { EVENT_SUBSCRIBERS, type EventOwner, type EventSubscriber, ownerKey, type RecordedEvent } from './event-subscriber';
import type { EventEnvelope, EventType } from './event-types';

/** One event to write: its owner (workspace and environment) and its `data`. */
export interface NewEvent {
  owner: EventOwner;
  data: object;
}

/** The listeners of one event type among some owners (EventsService.audience). */
export class EventAudience {
  /** The owners (ownerKey) with at least one listener. */
  readonly ownerKeys: string[];

  constructor(
    readonly type: EventType,
    /** Per subscriber, in EVENT_SUBSCRIBERS order: its listener per owner (ownerKey). */
    readonly heard: ReadonlyArray<ReadonlyMap<string, unknown>>,
  ) {
    this.ownerKeys = [...new Set(heard.flatMap((l) => [...l.keys()]))];
  }
}

/**
 * The outbox writer. Events are written with the caller's EntityManager, i.e. inside the caller's transaction: if the
 * change rolls back, so does the event, and so does what subscribers wrote for it. Nothing is written when no
 * subscriber listens (docs/webhooks.md: an event nobody receives is not recorded); that check is one query per call.
 */
@Injectable()
export class EventsService {
  constructor(@Inject(EVENT_SUBSCRIBERS) private readonly subscribers: readonly EventSubscriber[]) {}

  /**
   * Records `type` for the owner (workspace and environment: the AuthContext, the code, the batch) inside the caller's
   * transaction and returns the `evt_…` id, or null when nobody listens in that environment (nothing is written then).
   * Call it with the transactional EM:
   * `em.transactional(async (em) => { …change…; await events.emit(em, auth, 'qr.updated', presented) })`.
   */
  async emit(em: EntityManager, owner: EventOwner, type: EventType, data: object): Promise<string | null> {
    const [id] = await this.emitMany(em, type, [{ owner, data }]);
    return id;
  }

  /** Which of these owners have a listener for `type`: emitMany's probe, asked ahead (scan ingestion asks before its
   * insert, so its statement returns only the scans that become events) and handed back to emitMany. */
  async audience(em: EntityManager, type: EventType, owners: readonly EventOwner[]): Promise<EventAudience> {
    const unique = [...new Map(owners.map((o) => [ownerKey(o), { organizationId: o.organizationId, environment: o.environment }])).values()];
    const heard = unique.length ? await Promise.all(this.subscribers.map((s) => s.listeners(em, unique, type))) : [];
    return new EventAudience(type, heard);
  }

  /** emit() for many events of one type at once (scan ingestion: one entry's qr.scanned events), in this order. Returns
   * each event's id, or null where its owner has no listener. `audience` (from audience(), same type) saves the probe. */
  async emitMany(em: EntityManager, type: EventType, items: readonly NewEvent[], audience?: EventAudience): Promise<Array<string | null>> {
    if (items.length === 0) return [];
    // Codes are created with a multi-row insert the ORM's flush hook does not see: their creation is audited here,
    // in the caller's transaction (every creation path emits qr.created).
    if (type === 'qr.created') {
      const created = items.filter((i) => typeof (i.data as { id?: unknown }).id === 'string');
      await recordAudit(
        em,
        ...created.map((i) => ({
          organizationId: i.owner.organizationId,
          action: 'qr_code.created',
          resource: { type: 'qr_code', id: (i.data as { id: string }).id },
          changes: creationChanges(i.data),
        })),
      );
    }
    if (audience && audience.type !== type) throw new Error(`an audience of ${audience.type} cannot take ${type} events`);
    const { heard } = audience ?? (await this.audience(em, type, items.map((i) => i.owner)));
    const wanted = items.filter((i) => heard.some((l) => l.has(ownerKey(i.owner))));
    if (wanted.length === 0) return items.map(() => null);
    const recorded = await this.insert(em, type, wanted);
    for (const [n, subscriber] of this.subscribers.entries()) {
      const mine = recorded.filter((e) => heard[n].has(ownerKey(e))).map((event) => ({ event, listener: heard[n].get(ownerKey(event)) }));
      if (mine.length) await subscriber.record(em, mine);
    }
    const ids = new Map(wanted.map((w, i) => [w, recorded[i].id]));
    return items.map((i) => ids.get(i) ?? null);
  }

  /** Writes events unconditionally (no subscriber is asked), e.g. a webhook test ping that its caller delivers itself. */
  async record(em: EntityManager, owner: EventOwner, type: EventType, data: object): Promise<RecordedEvent> {
    const [event] = await this.insert(em, type, [{ owner, data }]);
    return event;
  }

  /** The stored delivery body of an event (the exact bytes every delivery sends), or null when it is gone. */
  async payload(em: EntityManager, eventId: string): Promise<string | null> {
    const [row] = await em.execute<{ payload: string }[]>('select payload from events where id = ?', [eventId]);
    return row?.payload ?? null;
  }

  private async insert(em: EntityManager, type: EventType, items: readonly NewEvent[]): Promise<RecordedEvent[]> {
    const createdAt = new Date();
    const events = items.map((i) => ({ id: newId('evt'), organizationId: i.owner.organizationId, environment: i.owner.environment, type, createdAt }));
    const params: unknown[] = [];
    events.forEach((e, n) => {
      const envelope: EventEnvelope = { id: e.id, object: 'event', type, created_at: createdAt.toISOString(), data: items[n].data };
      params.push(e.id, e.organizationId, e.environment, type, JSON.stringify(envelope), createdAt);
    });
    await em.execute(
      `insert into events (id, organization_id, environment, type, payload, created_at) values ${events.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      params,
    );
    return events;
  }
}
