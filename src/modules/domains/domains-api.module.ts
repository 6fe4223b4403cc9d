import { Module } from '@nestjs/common';
import { DomainDns } from './domain-dns';
import { DomainsController } from './domains.controller';
import { DomainsService } from './domains.service';

/** API process: /v1/domains. */
@Module({ controllers: [DomainsController], providers: [DomainsService, DomainDns] })
export class DomainsApiModule {}
