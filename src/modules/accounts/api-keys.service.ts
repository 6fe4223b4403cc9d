import { Injectable } from '@nestjs/common';
import { EntityManager, LockMode } from '@mikro-orm/postgresql';
import { generateApiKey, hashApiKey, keyPrefix } from '../../common/auth/api-key-format';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import type { ListEnvelope } from '../../common/http/list';
import { pageByCreatedAt } from '../../common/http/pagination';
import { ApiKey } from './api-key.entity';
import type { CreatedKey } from './accounts.service';
import type { Organization } from './organization.entity';
import { findOrganization } from './organizations.repository';

/** A workspace's API keys after creation: listing, revoking, rotating (accounts owns api_keys and organizations). */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
  ) {}

  /** The workspace, or null when it does not exist. */
  findOrganization(id: string): Promise<Organization | null> {
    return findOrganization(this.em, id);
  }

  /** Newest first, keyset-paginated; `present` shapes each key. */
  list<T>(organizationId: string, query: { limit?: string; cursor?: string }, present: (key: ApiKey) => T): Promise<ListEnvelope<T>> {
    return pageByCreatedAt(this.em, ApiKey, { organizationId }, { ...query }, this.cursors, present);
  }

  /** Revokes the key (a revoked key stays revoked); 404 for an unknown or foreign id. */
  async revoke(organizationId: string, id: string): Promise<ApiKey> {
    const key = await this.em.findOne(ApiKey, { id, organizationId });
    if (!key) throw ApiException.notFound('API key', id);
    if (!key.revokedAt) {
      key.revokedAt = new Date();
      await this.em.flush();
    }
    return key;
  }

  /** Revokes the key and creates its replacement (same name, scopes, environment and expiry) in one transaction. */
  async rotate(organizationId: string, keyId: string): Promise<CreatedKey> {
    return this.em.transactional(async (em) => {
      const old = await em.findOne(ApiKey, { id: keyId, organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!old) throw ApiException.notFound('API key', keyId);
      if (old.revokedAt) throw ApiException.invalid('key_id', 'This key is already revoked; create a new one instead');
      old.revokedAt = new Date();
      const secret = generateApiKey(old.environment);
      const key = em.create(ApiKey, {
        organizationId,
        name: old.name,
        keyHash: hashApiKey(secret),
        keyPrefix: keyPrefix(secret),
        scopes: old.scopes,
        environment: old.environment,
        expiresAt: old.expiresAt ? rotatedExpiry(old.createdAt, old.expiresAt) : null,
      });
      em.persist(key);
      return { key, secret };
    });
  }
}

const DAY_MS = 86_400_000;

/** The rotated key keeps the old key's expiry (docs/api.md: rotation keeps the expiry). When that moment has passed, it gets
 * the old key's lifetime in whole days (at least one) from now instead: rotating an expired key must not yield a key
 * that is already expired. */
export function rotatedExpiry(createdAt: Date, expiresAt: Date, now = Date.now()): Date {
  if (expiresAt.getTime() > now) return expiresAt;
  const days = Math.max(1, Math.round((expiresAt.getTime() - createdAt.getTime()) / DAY_MS));
  return new Date(now + days * DAY_MS);
}
