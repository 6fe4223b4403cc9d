import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { RequiresScope } from '../../common/auth/decorators';
import { AuditLogListDto, AuditLogQueryDto } from './audit.dto';
import { AuditService } from './audit.service';

@ApiTags('Audit log')
@Controller('audit-log')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @RequiresScope('audit:read')
  @ApiOperation({
    summary: 'List the audit log',
    description: 'Every change from the API, the dashboard, MCP, the CLI and system jobs, newest first, kept 365 days. Owners and admins, or an API key with `audit:read`.',
  })
  @ApiOkResponse({ type: AuditLogListDto })
  list(@Auth() auth: AuthContext, @Query() query: AuditLogQueryDto): Promise<AuditLogListDto> {
    return this.audit.list(auth, query);
  }
}
