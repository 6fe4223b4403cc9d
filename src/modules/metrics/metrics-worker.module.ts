import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { MetricsModule } from './metrics.module';
import { WorkerMetricsSources } from './metrics-sources';

/** The worker's metrics: `GET /metrics` on WORKER_PORT, queue depths and the scan stream backlog. */
@Module({
  imports: [MetricsModule, ...Object.values(QUEUES).map((name) => BullModule.registerQueue({ name }))],
  providers: [WorkerMetricsSources],
})
export class MetricsWorkerModule {}
