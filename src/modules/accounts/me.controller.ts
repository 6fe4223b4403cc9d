import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Auth, AuthContext } from '../../common/auth/auth-context';
import { SCOPES } from '../../common/auth/scopes';
import { PLAN_IDS } from '../../common/auth/plan';

export class AccountDto {
  @ApiProperty({ enum: ['account'] }) object!: 'account';
  @ApiProperty({ example: 'org_4bX9kQ2mT7vLp1sZ8nYc' }) organization_id!: string;
  @ApiProperty({ example: 'Acme Coffee' }) organization_name!: string;
  @ApiProperty({ enum: PLAN_IDS, example: 'pro' }) plan!: string;
  @ApiProperty({ example: 'qr_live_AbCd', description: 'The visible prefix of the key used (first 12 characters)' })
  key_prefix!: string;
  @ApiProperty({ enum: SCOPES, isArray: true, example: ['qr:read', 'qr:write'] }) scopes!: string[];
  @ApiProperty({ enum: ['live', 'test'] }) environment!: 'live' | 'test';
}

@ApiTags('Account')
@ApiBearerAuth('api_key')
@Controller('me')
export class MeController {
  @Get()
  @ApiOperation({ summary: 'Identify the workspace behind the API key', description: 'Works with any valid key; needs no scope.' })
  @ApiOkResponse({ type: AccountDto })
  me(@Auth() auth: AuthContext): AccountDto {
    return {
      object: 'account',
      organization_id: auth.organizationId,
      organization_name: auth.organizationName,
      plan: auth.plan.id,
      key_prefix: auth.keyPrefix,
      scopes: auth.scopes,
      environment: auth.environment,
    };
  }
}
