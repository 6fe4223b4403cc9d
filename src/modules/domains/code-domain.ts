import { ForeignKeyConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { hasPrefix } from '../../common/ids';
import { DomainsRepository } from './domains.repository';

/** The custom domain a new dynamic code lives on; null = the default scan host. */
export interface CodeDomain {
  id: string;
  /** Lower case, punycode; fixed for the domain's life (a domain cannot go while codes use it). */
  hostname: string;
}

/**
 * The host a new code is created on, from the creation body's `domain_id`. Every creation path calls this (single
 * codes, batch items, dynamic GS1 codes), so they agree. For a dynamic code:
 * - a `dom_…` id: that domain, which must be the workspace's (in the key's environment) and verified: unknown or
 *   foreign → 404 `not_found`, pending or failed → 422 `domain_not_verified`, both naming `domain_id`;
 * - `null`: the default scan host;
 * - omitted (`undefined`): the workspace's primary domain when one is set, else the default scan host.
 * Static codes encode their content and live on no host: null, and a `domain_id` other than null is a 400.
 */
export async function resolveCodeDomain(
  em: EntityManager,
  scope: Pick<AuthContext, 'organizationId' | 'environment'>,
  kind: 'dynamic' | 'static',
  domainId: string | null | undefined,
): Promise<CodeDomain | null> {
  if (kind === 'static') {
    if (domainId != null) throw ApiException.invalid('domain_id', 'Static codes encode their content directly and use no scan host: domain_id applies to dynamic codes only');
    return null;
  }
  const repo = new DomainsRepository(em);
  if (domainId === null) return null;
  if (domainId === undefined) return repo.primaryFor(scope.organizationId, scope.environment);
  const domain = hasPrefix(domainId, 'dom') ? await repo.forCode(scope.organizationId, scope.environment, domainId) : null;
  if (!domain) throw new ApiException('not_found', `No such domain: '${domainId}'`, { field: 'domain_id' });
  if (domain.status !== 'verified') {
    throw new ApiException(
      'domain_not_verified',
      `The domain '${domain.hostname}' is ${domain.status}: publish its TXT record and verify it before creating codes on it`,
      { field: 'domain_id' },
    );
  }
  return { id: domain.id, hostname: domain.hostname };
}

/** What a failed insert of a code on `domain` means: the domain was deleted after it was resolved (its foreign key
 * refused the row) → 404 on `domain_id`; any other error is returned as it is. */
export function codeDomainError(err: unknown, domain: CodeDomain | null): unknown {
  const fk = err instanceof ForeignKeyConstraintViolationException && err.message.includes('qr_codes_domain_id_fk');
  return domain && fk ? new ApiException('not_found', `No such domain: '${domain.id}'`, { field: 'domain_id' }) : err;
}
