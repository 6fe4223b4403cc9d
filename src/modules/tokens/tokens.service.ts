import { Injectable } from '@nestjs/common';
import { ApiException } from '../../common/errors/api.exception';
import { AccountsService } from '../accounts/accounts.service';
import type { ApiKey } from '../accounts/api-key.entity';
import { ApiKeysService } from '../accounts/api-keys.service';
import type { Organization } from '../accounts/organization.entity';
import type { DashboardSession } from './dashboard-auth.service';
import type { ApiKeyDto, ApiKeyListDto, CreatedApiKeyDto, CreateTokenDto, ListTokensQueryDto } from './dto/tokens.dto';

export function presentKey(key: ApiKey): ApiKeyDto {
  return {
    id: key.id,
    object: 'api_key',
    name: key.name,
    key_prefix: key.keyPrefix,
    scopes: key.scopes,
    environment: key.environment,
    expires_at: key.expiresAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
  };
}

@Injectable()
export class TokensService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly keys: ApiKeysService,
  ) {}

  private async organization(session: DashboardSession): Promise<Organization> {
    const org = await this.keys.findOrganization(session.organizationId);
    if (!org) throw new ApiException('unauthorized', 'The session token names an unknown workspace');
    return org;
  }

  /** Free: making a key (creating, or rotating, which creates its successor) needs a verified account e-mail. */
  private assertMayMakeKeys(org: Organization, session: DashboardSession): void {
    if (org.plan === 'free' && !session.emailVerified) {
      throw new ApiException('plan_restricted', 'Creating a key on the free plan requires a verified account e-mail', { plan_id: 'free' });
    }
  }

  async create(session: DashboardSession, body: CreateTokenDto): Promise<CreatedApiKeyDto> {
    const org = await this.organization(session);
    this.assertMayMakeKeys(org, session);
    const { key, secret } = await this.accounts.createKey(
      org.id,
      { name: body.name, scopes: body.scopes, environment: body.environment, expiresInDays: body.expires_in_days ?? undefined },
      { enforceLimits: true },
    );
    return { ...presentKey(key), key: secret };
  }

  async list(session: DashboardSession, query: ListTokensQueryDto): Promise<ApiKeyListDto> {
    const org = await this.organization(session);
    return this.keys.list(org.id, query, presentKey);
  }

  async revoke(session: DashboardSession, id: string): Promise<ApiKeyDto> {
    const org = await this.organization(session);
    return presentKey(await this.keys.revoke(org.id, id));
  }

  async rotate(session: DashboardSession, keyId: string): Promise<CreatedApiKeyDto> {
    const org = await this.organization(session);
    this.assertMayMakeKeys(org, session);
    const { key, secret } = await this.keys.rotate(org.id, keyId);
    return { ...presentKey(key), key: secret };
  }
}
