import { Module } from '@nestjs/common';

/** Scan ingestion from the Redis stream, rollups, qr.scanned, raw-scan retention (worker process). */
@Module({})
export class AnalyticsWorkerModule {}
