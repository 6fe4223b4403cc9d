import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AccountsModule } from './accounts.module';
import { ApiKeyStrategy } from './api-key.strategy';
import { MeController } from './me.controller';

/** API process: API-key authentication (the passport strategy behind the global guard) and GET /v1/me. */
@Module({
  imports: [PassportModule, AccountsModule],
  controllers: [MeController],
  providers: [ApiKeyStrategy],
})
export class AccountsApiModule {}
