import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { AppConfig } from '../common/config/config';
import { ApiExceptionFilter } from '../common/errors/exception.filter';
import { HealthModule } from '../modules/health/health.module';
import { ImagesScanModule } from '../modules/images/images-scan.module';
import { LeadsScanModule } from '../modules/leads/leads-scan.module';
import { ScanHostModule } from '../modules/scan/scan-host.module';
import { ScanFilesModule } from '../modules/scan/scan-files.module';
import { DomainsScanModule } from '../modules/domains/domains-scan.module';
import { MetricsScanModule } from '../modules/metrics/metrics-scan.module';
import { CoreModule } from './core.module';
import { outboxModule } from './outbox';

/**
 * The scan host process: short-code redirects, hosted pages, images.
 *
 * No MikroORM request context is opened around its routes: each service forks the EntityManager itself. The
 * context is an AsyncLocalStorage, and the first `run()` of any AsyncLocalStorage turns on Node's async hooks for the
 * rest of the process's life; every redirect then pays for them (docs/scan-host.md "Async hooks stay off"). Health
 * probes and metrics scrapes, which arrive every few seconds in any deployment, would turn them on within seconds of
 * the start.
 */
@Module({})
export class ScanModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ScanModule,
      imports: [CoreModule.forRoot(config, { requestContext: false }), outboxModule(), HealthModule, ImagesScanModule, LeadsScanModule, ScanHostModule, DomainsScanModule, ScanFilesModule, MetricsScanModule],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
