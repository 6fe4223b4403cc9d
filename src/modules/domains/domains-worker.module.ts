import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bull';
import { QUEUES } from '../../common/queue/queues';
import { DomainDns } from './domain-dns';
import { DomainRecheckProcessor, DomainRecheckScheduler } from './domain-recheck';

/** Worker process: the 10-minute re-check of pending domains. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.maintenance })],
  providers: [DomainDns, DomainRecheckScheduler, DomainRecheckProcessor],
})
export class DomainsWorkerModule {}
