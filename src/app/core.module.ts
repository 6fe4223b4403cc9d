import { DynamicModule, Global, Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { BullModule } from '@nestjs/bull';
import { APP_CONFIG, AppConfig } from '../common/config/config';
import { DEFAULT_JOB_OPTIONS } from '../common/queue/queues';
import { redisProvider, RedisLifecycle, REDIS } from '../common/redis/redis.provider';
import { ormConfig } from '../mikro-orm.config';
import { loadPlans, PLAN_CATALOG } from '../modules/accounts/plans';
import { CursorCodec } from '../common/http/cursor';

/** Configuration, the ORM, Redis and the Bull root: what every process needs. */
@Global()
@Module({})
export class CoreModule {
  /**
   * `statementTimeout`: the api process bounds every statement by API_STATEMENT_TIMEOUT_MS (the worker does not).
   * `requestContext: false`: no MikroORM request context around every route (the scan process, scan.module.ts: its
   * services fork the EntityManager themselves).
   */
  static forRoot(config: AppConfig, opts: { statementTimeout?: boolean; requestContext?: boolean } = {}): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        MikroOrmModule.forRoot({
          ...ormConfig(config.databaseUrl, { statementTimeoutMs: opts.statementTimeout ? config.apiStatementTimeoutMs : undefined }),
          registerRequestContext: opts.requestContext !== false,
        }),
        BullModule.forRoot({ url: config.redisUrl, prefix: 'scanlink', defaultJobOptions: DEFAULT_JOB_OPTIONS }),
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: PLAN_CATALOG, useValue: loadPlans(config.plansFile) },
        { provide: CursorCodec, useValue: new CursorCodec(config.appSecret) },
        redisProvider,
        RedisLifecycle,
      ],
      exports: [APP_CONFIG, PLAN_CATALOG, CursorCodec, REDIS],
    };
  }
}
