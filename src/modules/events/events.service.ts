import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';

export type EventType =
  | 'qr.created'
  | 'qr.updated'
  | 'qr.deleted'
  | 'qr.restored'
  | 'qr.scanned'
  | 'batch.completed'
  | 'batch.failed'
  | 'lead.captured'
  | 'ping';

/** Placeholder until the webhooks module lands: events are recorded only when an endpoint subscribes, and none can
 * exist yet, so nothing is written. */
@Injectable()
export class EventsService {
  async emit(_em: EntityManager, _organizationId: string, _type: EventType, _data: object): Promise<string | null> {
    return null;
  }
}
