import type { DynamicModule } from '@nestjs/common';
import { EventsModule } from '../modules/events/events.module';
import { WebhookOutbox } from '../modules/webhooks/webhook-outbox';
import { WebhookOutboxModule } from '../modules/webhooks/webhook-outbox.module';

/** The outbox with its subscribers, the same in the three processes: events/ defines the subscriber interface,
 * webhooks/ implements it, and this is the one place that puts them together. */
export function outboxModule(): DynamicModule {
  return EventsModule.forRoot({ imports: [WebhookOutboxModule], subscribers: [WebhookOutbox] });
}
