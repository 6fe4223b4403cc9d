import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { AppConfig } from '../common/config/config';
import { ApiExceptionFilter } from '../common/errors/exception.filter';
import { HealthModule } from '../modules/health/health.module';
import { ImagesModule } from '../modules/rendering/images.module';
import { LeadsModule } from '../modules/leads/leads.module';
import { ScanHostModule } from '../modules/scan/scan-host.module';
import { DomainsScanModule } from '../modules/domains/domains-scan.module';
import { CoreModule } from './core.module';

/** The scan host process: short-code redirects, hosted pages, images. */
@Module({})
export class ScanModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ScanModule,
      imports: [CoreModule.forRoot(config), HealthModule, ImagesModule, LeadsModule, ScanHostModule, DomainsScanModule],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }],
    };
  }
}
