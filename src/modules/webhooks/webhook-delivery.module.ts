import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { MailModule } from '../mail/mail.module';
import { WebhookDeliveryService } from './webhook-delivery.service';

/** The attempt code shared by the worker (every delivery) and the API (the test ping). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.webhookDeliveries }), MailModule],
  providers: [WebhookDeliveryService],
  exports: [WebhookDeliveryService],
})
export class WebhookDeliveryModule {}
