import { Module } from '@nestjs/common';

/** GET /v1/qr-codes/{id}/analytics (api process). */
@Module({})
export class AnalyticsModule {}
