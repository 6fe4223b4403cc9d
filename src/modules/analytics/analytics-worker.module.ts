import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { ScanIngestConsumer } from './scan-ingest.consumer';
import { ScanRetentionProcessor, ScanRetentionScheduler } from './scan-retention';

/** Scan ingestion from the Redis stream, rollups, qr.scanned, raw-scan retention (worker process). */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.maintenance })],
  providers: [ScanIngestConsumer, ScanRetentionScheduler, ScanRetentionProcessor],
})
export class AnalyticsWorkerModule {}
