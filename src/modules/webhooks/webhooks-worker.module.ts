import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { WebhookDeliveryRetentionProcessor, WebhookDeliveryRetentionScheduler } from './webhook-delivery-retention';
import { WebhookDeliveryModule } from './webhook-delivery.module';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookDispatcher } from './webhook-dispatcher';

/** Worker process: the delivery processor, the NOTIFY listener, the sweeper and the 30-day delivery retention. */
@Module({
  imports: [WebhookDeliveryModule, BullModule.registerQueue({ name: QUEUES.maintenance })],
  providers: [WebhookDeliveryProcessor, WebhookDispatcher, WebhookDeliveryRetentionScheduler, WebhookDeliveryRetentionProcessor],
})
export class WebhooksWorkerModule {}
