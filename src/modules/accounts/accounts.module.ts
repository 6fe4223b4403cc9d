import { Module } from '@nestjs/common';
import { AccountsService } from './accounts.service';

/** Organizations and API keys, for any module that creates keys or resolves them. */
@Module({ providers: [AccountsService], exports: [AccountsService] })
export class AccountsModule {}
