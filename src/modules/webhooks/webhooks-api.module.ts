import { Module } from '@nestjs/common';
import { WebhookDeliveryModule } from './webhook-delivery.module';
import { WebhookOutboxModule } from './webhook-outbox.module';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** API process: /v1/webhooks. */
@Module({ imports: [WebhookDeliveryModule, WebhookOutboxModule], controllers: [WebhooksController], providers: [WebhooksService] })
export class WebhooksApiModule {}
