import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ROLE_SCOPES, type Role } from '../../common/auth/roles';
import type { SessionAuthenticator } from '../../common/auth/session-authenticator';
import { ApiException } from '../../common/errors/api.exception';
import type { Organization } from '../accounts/organization.entity';
import { findOrganization } from '../accounts/organizations.repository';
import { PLAN_CATALOG, type PlanCatalog } from '../accounts/plans';
import { DashboardAuthService } from '../tokens/dashboard-auth.service';
import { membershipOf } from './members.repository';

const ORG_CACHE_MS = 5_000;

/** Whether the session names a Scanlink user (a `usr_…` subject) rather than the subject of an external identity
 * provider or the operator CLI's `dashboard-token`, which act as the workspace's owner. */
export const isMemberSession = (userId: string): boolean => userId.startsWith('usr_');

/** Dashboard sessions on every /v1 route: the JWT is verified in memory; its `role` claim picks the scopes. The
 * workspace (name, plan) is read from PostgreSQL, cached for 5 s per process. */
@Injectable()
export class SessionAuthService implements SessionAuthenticator {
  private readonly orgs = new Map<string, { org: Organization; at: number }>();

  constructor(
    private readonly dashboard: DashboardAuthService,
    private readonly em: EntityManager,
    @Inject(PLAN_CATALOG) private readonly plans: PlanCatalog,
  ) {}

  async authenticate(token: string): Promise<AuthContext> {
    const session = await this.dashboard.verify(`Bearer ${token}`);
    const org = await this.organization(session.organizationId);
    if (!org) throw new ApiException('unauthorized', 'The session token names an unknown workspace');
    const role: Role = session.role ?? 'owner';
    return {
      organizationId: org.id,
      organizationName: org.name,
      keyId: `session:${session.userId}`,
      keyPrefix: '',
      scopes: [...ROLE_SCOPES[role]],
      plan: this.plans[org.plan],
      environment: 'live',
      actor: { type: 'user', id: session.userId, email: session.email },
      role,
    };
  }

  async requireRole(session: { organizationId: string; userId: string; role?: Role }, roles: readonly Role[]): Promise<Role> {
    let role: Role = session.role ?? 'owner';
    if (isMemberSession(session.userId)) {
      const membership = await membershipOf(this.em.fork(), session.organizationId, session.userId);
      if (!membership || membership.status !== 'active') {
        throw new ApiException('unauthorized', 'You are no longer a member of this workspace: sign in again');
      }
      role = membership.role;
    }
    if (!roles.includes(role)) {
      throw new ApiException('insufficient_scope', `This needs the ${roles.join(' or ')} role; you are ${role === 'admin' || role === 'editor' ? 'an' : 'a'} ${role}`);
    }
    return role;
  }

  private async organization(id: string): Promise<Organization | null> {
    const hit = this.orgs.get(id);
    if (hit && Date.now() - hit.at < ORG_CACHE_MS) return hit.org;
    const org = await findOrganization(this.em.fork(), id);
    if (org) {
      if (this.orgs.size > 10_000) this.orgs.clear();
      this.orgs.set(id, { org, at: Date.now() });
    }
    return org;
  }
}
