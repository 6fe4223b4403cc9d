import { Module } from '@nestjs/common';
import { AccountsService } from './accounts.service';
import { ApiKeysService } from './api-keys.service';

/** Organizations and API keys, for any module that creates keys or resolves them. */
@Module({ providers: [AccountsService, ApiKeysService], exports: [AccountsService, ApiKeysService] })
export class AccountsModule {}
