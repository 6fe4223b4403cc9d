import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { AccountsService } from './accounts.service';
import { ApiKeyStrategy } from './api-key.strategy';
import { MeController } from './me.controller';

@Module({
  imports: [PassportModule],
  controllers: [MeController],
  providers: [AccountsService, ApiKeyStrategy],
  exports: [AccountsService],
})
export class AccountsModule {}
