import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { IdempotencyInterceptor } from '../common/http/idempotency.interceptor';
import type { AppConfig } from '../common/config/config';
import { ApiKeyGuard } from '../common/auth/api-key.guard';
import { PlanGuard } from '../common/auth/plan.guard';
import { ScopeGuard } from '../common/auth/scope.guard';
import { ApiExceptionFilter } from '../common/errors/exception.filter';
import { RateLimiter } from '../common/http/rate-limiter';
import { AccountsModule } from '../modules/accounts/accounts.module';
import { HealthModule } from '../modules/health/health.module';
import { TokensModule } from '../modules/tokens/tokens.module';
import { FoldersModule } from '../modules/folders/folders.module';
import { QrCodesModule } from '../modules/qr-codes/qr-codes.module';
import { BatchesModule } from '../modules/batches/batches.module';
import { EventsApiModule } from '../modules/events/events-api.module';
import { WebhooksModule } from '../modules/webhooks/webhooks.module';
import { AnalyticsModule } from '../modules/analytics/analytics.module';
import { DomainsApiModule } from '../modules/domains/domains-api.module';
import { CoreModule } from './core.module';

/** The REST API process: everything under /v1, Swagger, /health. Adds jobs, never processes them. */
@Module({})
export class ApiModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [CoreModule.forRoot(config), HealthModule, AccountsModule, TokensModule, QrCodesModule, FoldersModule, BatchesModule, EventsApiModule, WebhooksModule, AnalyticsModule, DomainsApiModule],
      providers: [
        RateLimiter,
        // Order matters: authenticate (and rate-limit), then scope, then plan.
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: ScopeGuard },
        { provide: APP_GUARD, useClass: PlanGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
      ],
    };
  }
}
