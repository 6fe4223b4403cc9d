import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { QUEUES } from '../../common/queue/queues';
import { DELIVER_JOB, DeliverJob, WebhookDeliveryService } from './webhook-delivery.service';

/** Enough parallel attempts that slow receivers (up to the 10 s timeout) do not hold back the others. */
export const DELIVERY_CONCURRENCY = 64;

@Processor(QUEUES.webhookDeliveries)
export class WebhookDeliveryProcessor {
  constructor(private readonly deliveries: WebhookDeliveryService) {}

  @Process({ name: DELIVER_JOB, concurrency: DELIVERY_CONCURRENCY })
  async deliver(job: Job<DeliverJob>): Promise<string | null> {
    return this.deliveries.attempt(job.data.deliveryId, job.data.attempt);
  }
}
