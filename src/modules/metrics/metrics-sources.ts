import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bull';
import { ModuleRef } from '@nestjs/core';
import type { Queue } from 'bull';
import type { Redis } from 'ioredis';
import { queueJobsSource, scanBufferSizeSource, scanStreamBacklogSource, type GaugeSample } from '../../common/metrics/metrics';
import { QUEUES } from '../../common/queue/queues';
import { REDIS } from '../../common/redis/redis.provider';
import { ScanBuffer } from '../scan/scan-buffer';
import { SCAN_STREAM } from '../scan/scan-contract';

const JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'paused'] as const;

/** Worker: Bull queue depths by state and the scan stream's backlog, read from Redis when Prometheus scrapes. */
@Injectable()
export class WorkerMetricsSources implements OnModuleInit, OnModuleDestroy {
  private readonly unregister: Array<() => void> = [];

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  onModuleInit(): void {
    const queues = Object.values(QUEUES).map((name) => this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }));
    this.unregister.push(
      queueJobsSource(async () => {
        const samples: GaugeSample[] = [];
        for (const queue of queues) {
          const counts: Partial<Record<(typeof JOB_STATES)[number], number>> = await queue.getJobCounts();
          for (const state of JOB_STATES) samples.push({ labels: { queue: queue.name, state }, value: counts[state] ?? 0 });
        }
        return samples;
      }),
      // Stored entries are deleted (XDEL after XACK), so the stream's length is what no worker has stored yet.
      scanStreamBacklogSource(async () => [{ value: await this.redis.xlen(SCAN_STREAM) }]),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.unregister.splice(0)) off();
  }
}

/** Scan process: scans waiting in this process's buffer. */
@Injectable()
export class ScanMetricsSources implements OnModuleInit, OnModuleDestroy {
  private off?: () => void;

  constructor(private readonly buffer: ScanBuffer) {}

  onModuleInit(): void {
    this.off = scanBufferSizeSource(() => [{ value: this.buffer.size }]);
  }

  onModuleDestroy(): void {
    this.off?.();
  }
}
