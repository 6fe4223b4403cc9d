import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DASHBOARD_SESSION_PROPERTY } from '../../common/auth/auth-context';
import { MANAGER_ROLES } from '../../common/auth/roles';
import { SESSION_AUTHENTICATOR, type SessionAuthenticator } from '../../common/auth/session-authenticator';
import { DashboardAuthService, DashboardSession } from './dashboard-auth.service';

export const DASHBOARD_SESSION = DASHBOARD_SESSION_PROPERTY;

/** Key management: a valid dashboard session token whose user is, right now, an owner or admin of the workspace (the
 * membership is read from the database on every request, so a removed member loses access at once). */
@Injectable()
export class DashboardGuard implements CanActivate {
  constructor(
    private readonly auth: DashboardAuthService,
    @Optional() @Inject(SESSION_AUTHENTICATOR) private readonly sessions?: SessionAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest & Record<string, unknown>>();
    const session: DashboardSession = await this.auth.verify(req.headers.authorization);
    if (this.sessions) await this.sessions.requireRole(session, MANAGER_ROLES);
    req[DASHBOARD_SESSION] = session;
    return true;
  }
}
