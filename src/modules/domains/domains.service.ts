import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import type { AuthContext } from '../../common/auth/auth-context';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec } from '../../common/http/cursor';
import { hasPrefix, randomBase62 } from '../../common/ids';
import { REDIS } from '../../common/redis/redis.provider';
import { Domain } from './domain.entity';
import { announceDomainChange } from './domain-host-cache';
import { challengeName, DomainDns } from './domain-dns';
import type { CreateDomainDto, DeletedDomainDto, DomainDto, DomainListDto, ListDomainsQueryDto, UpdateDomainDto } from './domains.dto';
import { DomainInUseError, DomainsRepository, DomainTakenError } from './domains.repository';
import { normalizeHostname, serviceHosts } from './hostname';

/** A pending domain whose TXT record has not been found for this long becomes `failed`. */
export const VERIFICATION_WINDOW_MS = 7 * 86_400_000;

export function presentDomain(d: Domain): DomainDto {
  return {
    id: d.id,
    object: 'domain',
    hostname: d.hostname,
    status: d.status,
    primary: d.isPrimary,
    verification: {
      type: 'TXT',
      name: challengeName(d.hostname),
      value: d.verificationValue,
      last_error: d.status === 'verified' ? null : d.lastError,
      last_checked_at: d.checkedAt ? d.checkedAt.toISOString() : null,
    },
    created_at: d.createdAt.toISOString(),
    verified_at: d.verifiedAt ? d.verifiedAt.toISOString() : null,
  };
}

@Injectable()
export class DomainsService {
  private readonly logger = new Logger(DomainsService.name);
  private readonly ownHosts: string[];

  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    private readonly dns: DomainDns,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    this.ownHosts = serviceHosts([config.apiBaseUrl, config.scanBaseUrl, config.imageBaseUrl]);
  }

  private async find(auth: AuthContext, id: string, repo = new DomainsRepository(this.em)): Promise<Domain> {
    const domain = hasPrefix(id, 'dom') ? await repo.find(auth.organizationId, auth.environment, id) : null;
    if (!domain) throw ApiException.notFound('domain', id);
    return domain;
  }

  async create(auth: AuthContext, dto: CreateDomainDto): Promise<DomainDto> {
    const limit = auth.plan.custom_domains;
    if (limit === 0) {
      throw new ApiException('plan_restricted', `The ${auth.plan.id} plan does not include custom domains; upgrade to Plus or higher`, {
        plan_id: auth.plan.id,
      });
    }
    const checked = normalizeHostname(dto.hostname, this.ownHosts);
    if ('error' in checked) throw ApiException.invalid('hostname', checked.error);
    const { hostname } = checked;
    try {
      const domain = await this.em.transactional(async (em) => {
        const repo = new DomainsRepository(em);
        await repo.lockWorkspace(auth.organizationId);
        // A verified host name is taken; pending and failed claims of other workspaces block nobody.
        if (await repo.claimBlocked(auth.organizationId, hostname)) throw new DomainTakenError(hostname);
        const current = await repo.count(auth.organizationId);
        if (current >= limit) {
          throw new ApiException('plan_limit_reached', `The ${auth.plan.id} plan allows ${limit} custom domain(s); ${current} exist`, {
            limit,
            current_count: current,
            requested: 1,
            plan_id: auth.plan.id,
          });
        }
        return repo.insert({
          organizationId: auth.organizationId,
          environment: auth.environment,
          hostname,
          verificationValue: `scanlink-verify=${randomBase62(32)}`,
        });
      });
      return presentDomain(domain);
    } catch (err) {
      if (err instanceof DomainTakenError) {
        throw new ApiException('domain_taken', `The hostname '${hostname}' is already verified by a workspace, or claimed by yours`, { field: 'hostname' });
      }
      throw err;
    }
  }

  list(auth: AuthContext, query: ListDomainsQueryDto): Promise<DomainListDto> {
    return new DomainsRepository(this.em).page(auth.organizationId, auth.environment, { ...query }, this.cursors, presentDomain);
  }

  async retrieve(auth: AuthContext, id: string): Promise<DomainDto> {
    return presentDomain(await this.find(auth, id));
  }

  async update(auth: AuthContext, id: string, dto: UpdateDomainDto): Promise<DomainDto> {
    const domain = await this.em.transactional(async (em) => {
      const repo = new DomainsRepository(em);
      await repo.lockWorkspace(auth.organizationId);
      const d = await this.find(auth, id, repo);
      if (dto.primary !== undefined && dto.primary !== d.isPrimary) {
        if (dto.primary && d.status !== 'verified') {
          throw new ApiException('domain_not_verified', `The domain '${d.hostname}' is not verified yet; only a verified domain can be primary`, {
            field: 'primary',
          });
        }
        await repo.setPrimary(d, dto.primary);
      }
      return d;
    });
    return presentDomain(domain);
  }

  /** A fresh DNS check now; see DomainsRepository.recordCheck for what it changes. */
  async verify(auth: AuthContext, id: string): Promise<DomainDto> {
    const domain = await this.find(auth, id);
    if (domain.status === 'verified') return presentDomain(domain);
    const result = await this.dns.check(domain.hostname, domain.verificationValue);
    const repo = new DomainsRepository(this.em);
    if ((await repo.recordCheck(domain.id, result, new Date(Date.now() - VERIFICATION_WINDOW_MS))) === 'verified') {
      announceDomainChange(this.redis, domain.hostname, this.logger);
    }
    await this.em.refresh(domain);
    return presentDomain(domain);
  }

  /** 409 `domain_in_use` while any code row names the domain (live, trashed or paused): the foreign key from
   * qr_codes.domain_id decides, so a code created concurrently cannot be left without its domain. */
  async remove(auth: AuthContext, id: string): Promise<DeletedDomainDto> {
    const domain = await this.find(auth, id);
    try {
      await new DomainsRepository(this.em).delete(domain);
    } catch (err) {
      if (err instanceof DomainInUseError) {
        throw new ApiException('domain_in_use', `The domain '${domain.hostname}' is still used by codes; delete them (and empty them from the Trash) first`);
      }
      throw err;
    }
    if (domain.status === 'verified') announceDomainChange(this.redis, domain.hostname, this.logger);
    return { id: domain.id, object: 'domain', deleted: true };
  }
}
