import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { DASHBOARD_SESSION_PROPERTY } from '../../common/auth/auth-context';
import { DashboardAuthService, DashboardSession } from './dashboard-auth.service';

export const DASHBOARD_SESSION = DASHBOARD_SESSION_PROPERTY;

@Injectable()
export class DashboardGuard implements CanActivate {
  constructor(private readonly auth: DashboardAuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<FastifyRequest & Record<string, unknown>>();
    const session: DashboardSession = await this.auth.verify(req.headers.authorization);
    req[DASHBOARD_SESSION] = session;
    return true;
  }
}
