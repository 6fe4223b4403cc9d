import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { generateApiKey, hashApiKey, keyPrefix } from '../../common/auth/api-key-format';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import { pageByCreatedAt } from '../../common/http/pagination';
import { AccountsService } from '../accounts/accounts.service';
import { ApiKey } from '../accounts/api-key.entity';
import { Organization } from '../accounts/organization.entity';
import type { DashboardSession } from './dashboard-auth.service';
import type { ApiKeyDto, CreatedApiKeyDto, CreateTokenDto, ListTokensQueryDto } from './dto/tokens.dto';

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
    private readonly em: EntityManager,
    private readonly accounts: AccountsService,
    private readonly cursors: CursorCodec,
  ) {}

  private async organization(session: DashboardSession): Promise<Organization> {
    const org = await this.em.findOne(Organization, { id: session.organizationId });
    if (!org) throw new ApiException('unauthorized', 'The session token names an unknown workspace');
    return org;
  }

  async create(session: DashboardSession, body: CreateTokenDto): Promise<CreatedApiKeyDto> {
    const org = await this.organization(session);
    if (org.plan === 'free' && !session.emailVerified) {
      throw new ApiException('plan_restricted', 'Creating a key on the free plan requires a verified account e-mail', { plan_id: 'free' });
    }
    const { key, secret } = await this.accounts.createKey(
      org.id,
      { name: body.name, scopes: body.scopes, environment: body.environment, expiresInDays: body.expires_in_days ?? undefined },
      { enforceLimits: true },
    );
    return { ...presentKey(key), key: secret };
  }

  async list(session: DashboardSession, query: ListTokensQueryDto) {
    const org = await this.organization(session);
    return pageByCreatedAt(this.em, ApiKey, { organizationId: org.id }, { ...query }, this.cursors, presentKey);
  }

  private async findKey(orgId: string, id: string): Promise<ApiKey> {
    const key = await this.em.findOne(ApiKey, { id, organizationId: orgId });
    if (!key) throw ApiException.notFound('API key', id);
    return key;
  }

  async revoke(session: DashboardSession, id: string): Promise<ApiKeyDto> {
    const org = await this.organization(session);
    const key = await this.findKey(org.id, id);
    if (!key.revokedAt) {
      key.revokedAt = new Date();
      await this.em.flush();
    }
    return presentKey(key);
  }

  async rotate(session: DashboardSession, keyId: string): Promise<CreatedApiKeyDto> {
    const org = await this.organization(session);
    return this.em.transactional(async (em) => {
      const old = await em.findOne(ApiKey, { id: keyId, organizationId: org.id }, { lockMode: 4 });
      if (!old) throw ApiException.notFound('API key', keyId);
      if (old.revokedAt) throw ApiException.invalid('key_id', 'This key is already revoked; create a new one instead');
      old.revokedAt = new Date();
      const secret = generateApiKey(old.environment);
      const key = em.create(ApiKey, {
        organizationId: org.id,
        name: old.name,
        keyHash: hashApiKey(secret),
        keyPrefix: keyPrefix(secret),
        scopes: old.scopes,
        environment: old.environment,
        expiresAt: old.expiresAt ? rotatedExpiry(old.createdAt, old.expiresAt) : null,
      });
      em.persist(key);
      return { ...presentKey(key), key: secret };
    });
  }
}

const DAY_MS = 86_400_000;

/** The rotated key keeps the old key's expiry (the spec: rotation keeps expiry). When that moment has passed, it gets
 * the old key's lifetime in whole days (at least one) from now instead: rotating an expired key must not yield a key
 * that is already expired. */
export function rotatedExpiry(createdAt: Date, expiresAt: Date, now = Date.now()): Date {
  if (expiresAt.getTime() > now) return expiresAt;
  const days = Math.max(1, Math.round((expiresAt.getTime() - createdAt.getTime()) / DAY_MS));
  return new Date(now + days * DAY_MS);
}
