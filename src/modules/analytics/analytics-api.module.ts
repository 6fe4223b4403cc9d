import { Module } from '@nestjs/common';
import { AnalyticsController } from './analytics.controller';
import { AnalyticsService } from './analytics.service';
import { ScansController } from './scans.controller';
import { ScansService } from './scans.service';
import { ScanLiveHub } from './scan-live.hub';

/** GET /v1/qr-codes/{id}/analytics, GET /v1/analytics, GET /v1/scans (api process). */
@Module({
  controllers: [AnalyticsController, ScansController],
  providers: [AnalyticsService, ScansService, ScanLiveHub],
  exports: [AnalyticsService],
})
export class AnalyticsApiModule {}
