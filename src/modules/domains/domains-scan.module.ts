import { Module } from '@nestjs/common';
import { DomainHostCache } from './domain-host-cache';
import { TlsAllowedController } from './tls-allowed.controller';

/** Scan process: the on-demand TLS `ask` endpoint, and the host → site map every scan route resolves `Host` with. */
@Module({ controllers: [TlsAllowedController], providers: [DomainHostCache], exports: [DomainHostCache] })
export class DomainsScanModule {}
