import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { AnalyticsApiModule } from '../analytics/analytics-api.module';
import { BatchesModule } from '../batches/batches.module';
import { FoldersApiModule } from '../folders/folders-api.module';
import { QrCodesModule } from '../qr-codes/qr-codes.module';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

/** API process: the MCP server (POST /mcp; `npm run mcp` boots the same app for stdio). */
@Module({
  imports: [AccountsModule, QrCodesModule, AnalyticsApiModule, FoldersApiModule, BatchesModule],
  controllers: [McpController],
  providers: [McpService],
  exports: [McpService],
})
export class McpApiModule {}
