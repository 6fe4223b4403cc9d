import { Inject, Injectable, Logger } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { EntityManager, LockMode } from '@mikro-orm/postgresql';
import { ApiException } from '../../common/errors/api.exception';
import { assertCleanStrings } from '../../common/errors/input-rules';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyPrefix } from '../../common/auth/api-key-format';
import type { AuthContext } from '../../common/auth/auth-context';
import { isScope, Scope, SCOPES } from '../../common/auth/scopes';
import type { Environment } from '../../common/auth/api-key-format';
import { ApiKey } from './api-key.entity';
import { Organization } from './organization.entity';
import { PLAN_IDS, type PlanId } from '../../common/auth/plan';
import { PLAN_CATALOG, PlanCatalog } from './plans';

export interface CreatedKey {
  key: ApiKey;
  secret: string;
}

export interface CreateKeyInput {
  name?: string;
  scopes?: string[];
  environment?: Environment;
  expiresInDays?: number;
}

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

@Injectable()
export class AccountsService {
  private readonly logger = new Logger(AccountsService.name);
  /** keyId → when this process last wrote last_used_at; the UPDATE itself is also conditional, for other processes. */
  private readonly lastUsedWrites = new Map<string, number>();

  constructor(
    private readonly em: EntityManager,
    @Inject(PLAN_CATALOG) private readonly plans: PlanCatalog,
  ) {}

  async createOrganization(input: { name: string; plan: PlanId; email: string; emailVerified?: boolean }): Promise<Organization> {
    if (!input.name?.trim() || input.name.length > 255) throw ApiException.invalid('name', 'name must be 1 to 255 characters');
    // The API's string rule, for callers no pipe guards (the CLI): no control characters, one line.
    assertCleanStrings({ name: input.name, email: input.email }, '', { singleLineFields: true });
    if (!(PLAN_IDS as readonly string[]).includes(input.plan)) {
      throw ApiException.invalid('plan', `plan must be one of ${PLAN_IDS.join(', ')}`);
    }
    // The same rule as sign-in and invitations (class-validator's isEmail, at most 320 characters): an owner the
    // sign-in endpoints would refuse could never sign in.
    if (!input.email || input.email.length > 320 || !isEmail(input.email)) throw ApiException.invalid('email', 'email must be an e-mail address');
    const org = this.em.create(Organization, {
      name: input.name.trim(),
      plan: input.plan,
      ownerEmail: input.email,
      emailVerified: input.emailVerified ?? true,
    });
    await this.em.persistAndFlush(org);
    return org;
  }

  async getOrganization(id: string): Promise<Organization> {
    const org = await this.em.findOne(Organization, { id });
    if (!org) throw ApiException.notFound('organization', id);
    return org;
  }

  /** Creates a key for an organization, enforcing the plan's active-key limit. */
  async createKey(organizationId: string, input: CreateKeyInput, opts: { enforceLimits?: boolean } = {}): Promise<CreatedKey> {
    const scopes = this.validateScopes(input.scopes);
    const environment = input.environment ?? 'live';
    if (environment !== 'live' && environment !== 'test') throw ApiException.invalid('environment', "environment must be 'live' or 'test'");
    const name = input.name ?? 'API key';
    if (typeof name !== 'string' || name.length < 1 || name.length > 255) throw ApiException.invalid('name', 'name must be 1 to 255 characters');
    assertCleanStrings({ name }, '', { singleLineFields: true });
    if (input.expiresInDays !== undefined && (!Number.isInteger(input.expiresInDays) || input.expiresInDays < 0 || input.expiresInDays > 3650)) {
      throw ApiException.invalid('expires_in_days', 'expires_in_days must be an integer from 0 to 3650');
    }
    return this.em.transactional(async (em) => {
      const org = await em.findOne(Organization, { id: organizationId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if (!org) throw ApiException.notFound('organization', organizationId);
      if (opts.enforceLimits) {
        const plan = this.plans[org.plan];
        const active = await em.count(ApiKey, {
          organizationId,
          revokedAt: null,
          $or: [{ expiresAt: null }, { expiresAt: { $gt: new Date() } }],
        });
        if (active >= plan.active_keys) {
          throw new ApiException('plan_limit_reached', `The ${plan.id} plan allows ${plan.active_keys} active API key(s)`, {
            limit: plan.active_keys,
            current_count: active,
            requested: 1,
            plan_id: plan.id,
          });
        }
      }
      const secret = generateApiKey(environment);
      const key = em.create(ApiKey, {
        organizationId,
        name,
        keyHash: hashApiKey(secret),
        keyPrefix: keyPrefix(secret),
        scopes,
        environment,
        expiresAt: input.expiresInDays === undefined ? null : new Date(Date.now() + input.expiresInDays * 86_400_000),
      });
      em.persist(key);
      return { key, secret };
    });
  }

  validateScopes(scopes: string[] | undefined): Scope[] {
    if (scopes === undefined) return [...SCOPES];
    if (!Array.isArray(scopes) || scopes.length === 0) throw ApiException.invalid('scopes', 'scopes must be a non-empty array');
    const bad = scopes.filter((s) => typeof s !== 'string' || !isScope(s));
    if (bad.length) throw ApiException.invalid('scopes', `Unknown scope(s): ${bad.join(', ')}. Known: ${SCOPES.join(', ')}`);
    return [...new Set(scopes as Scope[])];
  }

  /** Resolves a bearer token into the caller's context, or throws 401 saying why. */
  async authenticate(token: string): Promise<AuthContext> {
    if (!isWellFormedApiKey(token)) {
      throw new ApiException('unauthorized', 'Malformed API key: expected qr_live_… or qr_test_… followed by 32 characters');
    }
    const em = this.em.fork();
    const key = await em.findOne(ApiKey, { keyHash: hashApiKey(token) });
    if (!key) throw new ApiException('unauthorized', 'Unknown API key');
    if (key.revokedAt) throw new ApiException('unauthorized', 'This API key has been revoked');
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw new ApiException('unauthorized', 'This API key has expired');
    const org = await em.findOne(Organization, { id: key.organizationId });
    if (!org) throw new ApiException('unauthorized', 'Unknown API key');
    this.touchLastUsed(key.id);
    return {
      organizationId: org.id,
      organizationName: org.name,
      keyId: key.id,
      keyPrefix: key.keyPrefix,
      scopes: key.scopes.filter(isScope),
      plan: this.plans[org.plan],
      environment: key.environment,
    };
  }

  /** At most one write a minute per key, never awaited by the request. */
  private touchLastUsed(keyId: string): void {
    const now = Date.now();
    const last = this.lastUsedWrites.get(keyId);
    if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWrites.set(keyId, now);
    if (this.lastUsedWrites.size > 50_000) this.lastUsedWrites.clear();
    this.em
      .getConnection()
      .execute(
        `update api_keys set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
        [keyId],
      )
      .catch((err: Error) => this.logger.warn(`last_used_at update failed: ${err.message}`));
  }
}
