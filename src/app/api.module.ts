import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../common/queue/queues';
import { IdempotencyInterceptor } from '../common/http/idempotency.interceptor';
import type { AppConfig } from '../common/config/config';
import { ApiKeyGuard } from '../common/auth/api-key.guard';
import { PlanGuard } from '../common/auth/plan.guard';
import { ScopeGuard } from '../common/auth/scope.guard';
import { ApiExceptionFilter } from '../common/errors/exception.filter';
import { RateLimiter } from '../common/http/rate-limiter';
import { AccountsApiModule } from '../modules/accounts/accounts-api.module';
import { HealthModule } from '../modules/health/health.module';
import { TokensApiModule } from '../modules/tokens/tokens-api.module';
import { MembersApiModule } from '../modules/members/members-api.module';
import { AuditApiModule } from '../modules/audit/audit-api.module';
import { AuditScopeInterceptor } from '../common/audit/audit-scope.interceptor';
import { FoldersApiModule } from '../modules/folders/folders-api.module';
import { QrCodesApiModule } from '../modules/qr-codes/qr-codes-api.module';
import { BatchesApiModule } from '../modules/batches/batches-api.module';
import { EventsApiModule } from '../modules/events/events-api.module';
import { WebhooksApiModule } from '../modules/webhooks/webhooks-api.module';
import { AnalyticsApiModule } from '../modules/analytics/analytics-api.module';
import { DomainsApiModule } from '../modules/domains/domains-api.module';
import { FilesApiModule } from '../modules/files/files-api.module';
import { FilesService } from '../modules/files/files.service';
import { MetricsModule } from '../modules/metrics/metrics.module';
import { TemplatesApiModule } from '../modules/templates/templates-api.module';
import { ImagesModule } from '../modules/images/images.module';
import { ImagesService } from '../modules/images/images.service';
import { McpApiModule } from '../modules/mcp/mcp-api.module';
import { CoreModule } from './core.module';
import { outboxModule } from './outbox';

/** The REST API process: everything under /v1, Swagger, health, metrics, the queue dashboard. Adds jobs, never
 * processes them. */
@Module({})
export class ApiModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ApiModule,
      imports: [CoreModule.forRoot(config, { statementTimeout: true }), outboxModule(), HealthModule, AccountsApiModule.forRoot({ imports: [FilesApiModule], usage: FilesService }), TokensApiModule, MembersApiModule, AuditApiModule, QrCodesApiModule, FoldersApiModule, BatchesApiModule, EventsApiModule, WebhooksApiModule, AnalyticsApiModule, DomainsApiModule,
        FilesApiModule,
        TemplatesApiModule.forRoot({ imports: [ImagesModule], logos: ImagesService }),
        MetricsModule,
        McpApiModule,
        // Every queue, for the queue dashboard (queue-board.ts).
        ...Object.values(QUEUES).map((name) => BullModule.registerQueue({ name })),
      ],
      providers: [
        RateLimiter,
        // Order matters: authenticate (and rate-limit), then scope, then plan.
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        { provide: APP_GUARD, useClass: ScopeGuard },
        { provide: APP_GUARD, useClass: PlanGuard },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        // The audit scope wraps everything after it (the idempotent replay included).
        { provide: APP_INTERCEPTOR, useClass: AuditScopeInterceptor },
        { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
      ],
    };
  }
}
