import { Module } from '@nestjs/common';
import { DomainsScanModule } from '../domains/domains-scan.module';
import { LeadsController } from './leads.controller';
import { LeadsService } from './leads.service';

/**
 * Lead-capture form posts on the scan host (`POST /{short_code}`, application/x-www-form-urlencoded: Nest's Fastify
 * adapter registers that body parser itself, so nothing is added here).
 */
@Module({ imports: [DomainsScanModule], controllers: [LeadsController], providers: [LeadsService] })
export class LeadsScanModule {}
