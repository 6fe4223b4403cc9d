import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { AppConfig } from '../common/config/config';
import { AnalyticsWorkerModule } from '../modules/analytics/analytics-worker.module';
import { DomainsWorkerModule } from '../modules/domains/domains-worker.module';
import { CoreModule } from './core.module';
import { outboxModule } from './outbox';
import { QrCodesWorkerModule } from '../modules/qr-codes/qr-codes-worker.module';
import { BatchesWorkerModule } from '../modules/batches/batches-worker.module';
import { EventsWorkerModule } from '../modules/events/events-worker.module';
import { WebhooksWorkerModule } from '../modules/webhooks/webhooks-worker.module';

/** The worker process: Bull processors and scheduled tasks; opens no HTTP port. Only this module imports processors. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config), outboxModule(), ScheduleModule.forRoot(), QrCodesWorkerModule, BatchesWorkerModule, EventsWorkerModule, WebhooksWorkerModule, AnalyticsWorkerModule, DomainsWorkerModule],
    };
  }
}
