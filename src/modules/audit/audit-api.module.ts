import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

/** API process: GET /v1/audit-log. */
@Module({ controllers: [AuditController], providers: [AuditService] })
export class AuditApiModule {}
