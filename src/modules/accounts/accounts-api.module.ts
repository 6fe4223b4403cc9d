import { type DynamicModule, type ModuleMetadata, Module, type Type } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AccountsModule } from './accounts.module';
import { ApiKeyStrategy } from './api-key.strategy';
import { MeController } from './me.controller';
import { WORKSPACE_USAGE, type WorkspaceUsageSource } from './workspace-usage';

/** API process: API-key authentication (the passport strategy behind the global guard) and GET /v1/me, whose `usage`
 * comes from a source a module above accounts provides (src/app binds it: uploaded files). */
@Module({})
export class AccountsApiModule {
  static forRoot(opts: { imports: ModuleMetadata['imports']; usage: Type<WorkspaceUsageSource> }): DynamicModule {
    return {
      module: AccountsApiModule,
      imports: [PassportModule, AccountsModule, ...(opts.imports ?? [])],
      controllers: [MeController],
      providers: [ApiKeyStrategy, { provide: WORKSPACE_USAGE, useExisting: opts.usage }],
    };
  }
}
