import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventType } from './event-types';

/** An event as the outbox stored it (its body is in events.payload). */
export interface RecordedEvent {
  id: string;
  organizationId: string;
  type: EventType;
  createdAt: Date;
}

/**
 * Something that acts on events once they are committed (webhooks deliver them). The outbox knows subscribers only
 * through this interface; they are bound where a process is composed (src/app, EventsModule.forRoot).
 *
 * Both calls run inside the emitting transaction, with its EntityManager: what a subscriber writes commits or rolls
 * back with the event. An event no subscriber listens to is not recorded at all.
 */
export interface EventSubscriber<Listener = unknown> {
  /** For each workspace of `organizationIds` that has a listener for `type`, the subscriber's own description of it
   * (opaque to the outbox: for webhooks, the subscribed endpoint ids). Workspaces left out have none. */
  listeners(em: EntityManager, organizationIds: readonly string[], type: EventType): Promise<ReadonlyMap<string, Listener>>;
  /** Writes the subscriber's own rows for events just recorded (the event rows exist already). */
  record(em: EntityManager, events: ReadonlyArray<{ event: RecordedEvent; listener: Listener }>): Promise<void>;
}

/** Injection token: the subscribers of this process, in order. */
export const EVENT_SUBSCRIBERS = Symbol('EVENT_SUBSCRIBERS');
