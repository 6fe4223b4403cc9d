import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { DashboardAuth } from '../../common/auth/decorators';
import { DashboardGuard, DASHBOARD_SESSION } from './dashboard.guard';
import type { DashboardSession } from './dashboard-auth.service';
import { ApiKeyDto, ApiKeyListDto, CreatedApiKeyDto, CreateTokenDto, ListTokensQueryDto, RotateTokenDto } from './dto/tokens.dto';
import { TokensService } from './tokens.service';
import { NoBody } from '../../common/http/no-body';

const Session = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): DashboardSession => ctx.switchToHttp().getRequest()[DASHBOARD_SESSION],
);

@ApiTags('API keys')
@ApiExtraModels(ApiKeyDto)
@DashboardAuth()
@UseGuards(DashboardGuard)
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post()
  @ApiOperation({ summary: 'Create an API key', description: 'Needs a dashboard session token. The full key is returned once.' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  create(@Session() session: DashboardSession, @Body() body: CreateTokenDto): Promise<CreatedApiKeyDto> {
    return this.tokens.create(session, body);
  }

  @Get()
  @ApiOperation({ summary: 'List API keys', description: 'Newest first. Only prefixes are shown.' })
  @ApiOkResponse({ type: ApiKeyListDto })
  list(@Session() session: DashboardSession, @Query() query: ListTokensQueryDto): Promise<ApiKeyListDto> {
    return this.tokens.list(session, query);
  }

  @Delete(':id')
  @NoBody()
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke an API key', description: 'Requests with a revoked key answer 401.' })
  @ApiOkResponse({ type: ApiKeyDto })
  revoke(@Session() session: DashboardSession, @Param('id') id: string): Promise<ApiKeyDto> {
    return this.tokens.revoke(session, id);
  }

  @Post('rotate')
  @ApiOperation({ summary: 'Rotate an API key', description: 'Creates a key with the same name, scopes and expiry, and revokes the old one.' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  rotate(@Session() session: DashboardSession, @Body() body: RotateTokenDto): Promise<CreatedApiKeyDto> {
    return this.tokens.rotate(session, body.key_id);
  }
}
