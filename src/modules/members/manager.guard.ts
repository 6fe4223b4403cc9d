import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AUTH_PROPERTY, type AuthContext } from '../../common/auth/auth-context';
import { MANAGER_ROLES } from '../../common/auth/roles';
import { SESSION_AUTHENTICATOR, type SessionAuthenticator } from '../../common/auth/session-authenticator';
import { callerRole } from './member-caller';

/** Member management (invite, change a role): the caller must be, right now, an owner or admin of the workspace (read
 * from the database), or an API key with tokens:manage. A guard, so that a viewer gets 403 before the body is even
 * validated. */
@Injectable()
export class ManagerGuard implements CanActivate {
  constructor(@Inject(SESSION_AUTHENTICATOR) private readonly sessions: SessionAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const auth = context.switchToHttp().getRequest<Record<string, unknown>>()[AUTH_PROPERTY] as AuthContext | undefined;
    if (!auth) return true; // the global guard has already answered 401
    await callerRole(this.sessions, auth, MANAGER_ROLES);
    return true;
  }
}
