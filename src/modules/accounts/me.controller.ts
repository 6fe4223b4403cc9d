import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { SCOPES } from '../../common/auth/scopes';
import { PLAN_IDS } from '../../common/auth/plan';
import { WORKSPACE_USAGE, type WorkspaceUsageSource } from './workspace-usage';

export class AccountUsageDto {
  @ApiProperty({ type: 'integer', example: 52428800, description: 'Bytes of uploaded files, test and live together (the plan\'s storage_bytes)' }) storage_bytes!: number;
  @ApiProperty({ type: 'integer', example: 12, description: 'Uploaded files, test and live together (the plan\'s files)' }) files!: number;
}

export class AccountDto {
  @ApiProperty({ enum: ['account'] }) object!: 'account';
  @ApiProperty({ example: 'org_4bX9kQ2mT7vLp1sZ8nYc' }) organization_id!: string;
  @ApiProperty({ example: 'Acme Coffee' }) organization_name!: string;
  @ApiProperty({ enum: PLAN_IDS, example: 'pro' }) plan!: string;
  @ApiProperty({ example: 'qr_live_AbCd', description: 'The visible prefix of the key used (first 12 characters)' })
  key_prefix!: string;
  @ApiProperty({ enum: SCOPES, isArray: true, example: ['qr:read', 'qr:write'] }) scopes!: string[];
  @ApiProperty({ enum: ['live', 'test'] }) environment!: 'live' | 'test';
  @ApiProperty({ type: AccountUsageDto, description: 'What the workspace stores now; logos count in neither figure' }) usage!: AccountUsageDto;
}

@ApiTags('Account')
@ApiBearerAuth('api_key')
@ApiBearerAuth('dashboard_token')
@Controller('me')
export class MeController {
  constructor(@Inject(WORKSPACE_USAGE) private readonly usage: WorkspaceUsageSource) {}

  @Get()
  @ApiOperation({ summary: 'Identify the workspace behind the API key', description: 'Works with any valid key; needs no scope.' })
  @ApiOkResponse({ type: AccountDto })
  async me(@Auth() auth: AuthContext): Promise<AccountDto> {
    return {
      object: 'account',
      organization_id: auth.organizationId,
      organization_name: auth.organizationName,
      plan: auth.plan.id,
      key_prefix: auth.keyPrefix,
      scopes: auth.scopes,
      environment: auth.environment,
      usage: await this.usage.usage(auth.organizationId),
    };
  }
}
