import type { AuthContext } from '../../common/auth/auth-context';
import type { Role } from '../../common/auth/roles';
import type { SessionAuthenticator } from '../../common/auth/session-authenticator';
import { ApiException } from '../../common/errors/api.exception';

/**
 * The caller's role for the member endpoints, checked against `roles` (403 `insufficient_scope` otherwise). A dashboard
 * session has its member's role, read again from the database. An API key has no person behind it: one with the
 * `tokens:manage` scope (workspace administration) acts as an admin — it invites, changes roles below owner and
 * removes members — and any other key as a viewer, which may list them (docs/members.md).
 */
export async function callerRole(sessions: SessionAuthenticator, auth: AuthContext, roles: readonly Role[]): Promise<Role> {
  if (!auth.actor) {
    const role: Role = auth.scopes.includes('tokens:manage') ? 'admin' : 'viewer';
    if (!roles.includes(role)) throw new ApiException('insufficient_scope', 'Managing members with an API key needs the tokens:manage scope');
    return role;
  }
  return sessions.requireRole({ organizationId: auth.organizationId, userId: auth.actor.id, role: auth.role }, roles);
}
