import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { DashboardAuthService } from './dashboard-auth.service';
import { DashboardGuard } from './dashboard.guard';
import { TokensController } from './tokens.controller';
import { TokensService } from './tokens.service';

/** API process: dashboard-session key management. */
@Module({
  imports: [AccountsModule],
  controllers: [TokensController],
  providers: [TokensService, DashboardAuthService, DashboardGuard],
  exports: [DashboardAuthService],
})
export class TokensApiModule {}
