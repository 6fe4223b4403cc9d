import { Module } from '@nestjs/common';
import { TlsAllowedController } from './tls-allowed.controller';

/** Scan process: the on-demand TLS `ask` endpoint. */
@Module({ controllers: [TlsAllowedController] })
export class DomainsScanModule {}
