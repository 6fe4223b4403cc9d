import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse, getSchemaPath } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { ManagersOnly, RequiresScope } from '../../common/auth/decorators';
import { NoBody } from '../../common/http/no-body';
import { CreateDomainDto, DeletedDomainDto, DomainDto, DomainListDto, ListDomainsQueryDto, UpdateDomainDto } from './domains.dto';
import { DomainsService } from './domains.service';

/** The shared error envelope (registered by openapi.ts as an extra model). */
const envelope = { 'application/json': { schema: { $ref: getSchemaPath('ErrorEnvelopeDto') } } };

@ApiTags('Domains')
@Controller('domains')
export class DomainsController {
  constructor(private readonly domains: DomainsService) {}

  @Post()
  @RequiresScope('qr:write')
  @ManagersOnly()
  @ApiOperation({
    summary: 'Add a custom domain',
    description:
      'Registers a host name for scan URLs. Publish the TXT record named in `verification`, then call verify (the worker also ' +
      're-checks pending domains every 10 minutes). Free plan: 403 plan_restricted; over the plan\'s `custom_domains`: 403 plan_limit_reached.',
  })
  @ApiCreatedResponse({ type: DomainDto })
  @ApiConflictResponse({ description: 'domain_taken: a workspace holds this host name already (or idempotency_conflict)', content: envelope })
  create(@Auth() auth: AuthContext, @Body() body: CreateDomainDto): Promise<DomainDto> {
    return this.domains.create(auth, body);
  }

  @Get()
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'List custom domains', description: 'Newest first; only the key\'s environment (live or test).' })
  @ApiOkResponse({ type: DomainListDto })
  list(@Auth() auth: AuthContext, @Query() query: ListDomainsQueryDto): Promise<DomainListDto> {
    return this.domains.list(auth, query);
  }

  @Get(':id')
  @RequiresScope('qr:read')
  @ApiOperation({ summary: 'Retrieve a custom domain' })
  @ApiOkResponse({ type: DomainDto })
  retrieve(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DomainDto> {
    return this.domains.retrieve(auth, id);
  }

  @Patch(':id')
  @RequiresScope('qr:write')
  @ManagersOnly()
  @ApiOperation({ summary: 'Set or clear the primary domain', description: 'Only a verified domain can become primary.' })
  @ApiOkResponse({ type: DomainDto })
  @ApiUnprocessableEntityResponse({ description: 'domain_not_verified: `primary: true` on a domain that is not verified', content: envelope })
  update(@Auth() auth: AuthContext, @Param('id') id: string, @Body() body: UpdateDomainDto): Promise<DomainDto> {
    return this.domains.update(auth, id, body);
  }

  @Post(':id/verify')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ManagersOnly()
  @ApiOperation({
    summary: 'Check the TXT record now',
    description: 'Looks the record up in DNS and returns the domain: `verified` when found, otherwise unchanged (or `failed` once 7 days have passed).',
  })
  @ApiOkResponse({ type: DomainDto })
  verify(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DomainDto> {
    return this.domains.verify(auth, id);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @RequiresScope('qr:write')
  @ManagersOnly()
  @ApiOperation({ summary: 'Remove a custom domain', description: 'Refused while any code (live, trashed or paused) uses it; afterwards the host name is free.' })
  @ApiOkResponse({ type: DeletedDomainDto })
  @ApiConflictResponse({ description: 'domain_in_use: codes still use the domain', content: envelope })
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DeletedDomainDto> {
    return this.domains.remove(auth, id);
  }
}
