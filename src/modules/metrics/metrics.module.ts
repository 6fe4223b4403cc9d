import { Module, OnModuleInit } from '@nestjs/common';
import { enableDefaultMetrics } from '../../common/metrics/metrics';
import { MetricsController } from './metrics.controller';

/** `GET /metrics` with Node's default metrics; every process imports it (the api and scan processes directly). */
@Module({ controllers: [MetricsController] })
export class MetricsModule implements OnModuleInit {
  onModuleInit(): void {
    enableDefaultMetrics();
  }
}
