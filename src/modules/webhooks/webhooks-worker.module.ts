import { Module } from '@nestjs/common';
import { WebhookDeliveryModule } from './webhook-delivery.module';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookDispatcher } from './webhook-dispatcher';

/** Worker process: the delivery processor, the NOTIFY listener and the sweeper. */
@Module({ imports: [WebhookDeliveryModule], providers: [WebhookDeliveryProcessor, WebhookDispatcher] })
export class WebhooksWorkerModule {}
