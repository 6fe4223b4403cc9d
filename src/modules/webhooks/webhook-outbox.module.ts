import { Module } from '@nestjs/common';
import { WebhookOutbox } from './webhook-outbox';

/** Webhooks' side of the outbox, bound to EventsModule by each process's root module (src/app). */
@Module({ providers: [WebhookOutbox], exports: [WebhookOutbox] })
export class WebhookOutboxModule {}
