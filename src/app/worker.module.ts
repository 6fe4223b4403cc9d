import { DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { APP_FILTER } from '@nestjs/core';
import { ApiExceptionFilter } from '../common/errors/exception.filter';
import { HealthModule } from '../modules/health/health.module';
import { MetricsWorkerModule } from '../modules/metrics/metrics-worker.module';
import type { AppConfig } from '../common/config/config';
import { AnalyticsWorkerModule } from '../modules/analytics/analytics-worker.module';
import { DomainsWorkerModule } from '../modules/domains/domains-worker.module';
import { CoreModule } from './core.module';
import { outboxModule } from './outbox';
import { QrCodesWorkerModule } from '../modules/qr-codes/qr-codes-worker.module';
import { BatchesWorkerModule } from '../modules/batches/batches-worker.module';
import { EventsWorkerModule } from '../modules/events/events-worker.module';
import { AuditWorkerModule } from '../modules/audit/audit-worker.module';
import { WebhooksWorkerModule } from '../modules/webhooks/webhooks-worker.module';

/** The worker process: Bull processors and scheduled tasks, and on WORKER_PORT health and metrics only. Only this module
 * imports processors. */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.forRoot(config), outboxModule(), ScheduleModule.forRoot(), QrCodesWorkerModule, BatchesWorkerModule, EventsWorkerModule, AuditWorkerModule, WebhooksWorkerModule, AnalyticsWorkerModule, DomainsWorkerModule, HealthModule, MetricsWorkerModule],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
