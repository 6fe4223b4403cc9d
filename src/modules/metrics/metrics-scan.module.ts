import { Module } from '@nestjs/common';
import { ScanHostModule } from '../scan/scan-host.module';
import { MetricsModule } from './metrics.module';
import { ScanMetricsSources } from './metrics-sources';

/** The scan process's metrics: `GET /metrics` and the size of its scan buffer. */
@Module({ imports: [MetricsModule, ScanHostModule], providers: [ScanMetricsSources] })
export class MetricsScanModule {}
