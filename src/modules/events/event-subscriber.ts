import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../common/auth/api-key-format';
import type { EventType } from './event-types';

/**
 * Whose event it is: the workspace and the environment (test or live) of the object or key that caused it. An
 * AuthContext, a code or a batch is one. Events, and everything subscribers do with them, stay in their environment.
 */
export interface EventOwner {
  organizationId: string;
  environment: Environment;
}

/** The key of an owner in a `listeners` map. */
export function ownerKey(owner: EventOwner): string {
  return `${owner.organizationId}/${owner.environment}`;
}

/** An event as the outbox stored it (its body is in events.payload). */
export interface RecordedEvent extends EventOwner {
  id: string;
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
  /** For each owner (workspace and environment) of `owners` that has a listener for `type`, keyed by `ownerKey`, the
   * subscriber's own description of it (opaque to the outbox: for webhooks, the subscribed endpoint ids of that
   * environment). Owners left out have none. */
  listeners(em: EntityManager, owners: readonly EventOwner[], type: EventType): Promise<ReadonlyMap<string, Listener>>;
  /** Writes the subscriber's own rows for events just recorded (the event rows exist already). */
  record(em: EntityManager, events: ReadonlyArray<{ event: RecordedEvent; listener: Listener }>): Promise<void>;
}

/** Injection token: the subscribers of this process, in order. */
export const EVENT_SUBSCRIBERS = Symbol('EVENT_SUBSCRIBERS');
