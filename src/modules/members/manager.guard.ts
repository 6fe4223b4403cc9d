import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AUTH_PROPERTY, type AuthContext } from '../../common/auth/auth-context';
import { MANAGER_ROLES } from '../../common/auth/roles';
import { SESSION_AUTHENTICATOR, type SessionAuthenticator } from '../../common/auth/session-authenticator';

/** Member management (invite, change a role): the caller must be, right now, an owner or admin of the workspace (read
 * from the database). A guard, so that a viewer gets 403 before the body is even validated. */
@Injectable()
export class ManagerGuard implements CanActivate {
  constructor(@Inject(SESSION_AUTHENTICATOR) private readonly sessions: SessionAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const auth = context.switchToHttp().getRequest<Record<string, unknown>>()[AUTH_PROPERTY] as AuthContext | undefined;
    if (!auth) return true; // the global guard has already answered 401
    await this.sessions.requireRole({ organizationId: auth.organizationId, userId: auth.actor?.id ?? '', role: auth.role }, MANAGER_ROLES);
    return true;
  }
}
