import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Environment } from './api-key-format';
import type { Plan } from './plan';
import type { Role } from './roles';
import type { Scope } from './scopes';

/** Who is calling: resolved once per request from the API key and passed as the first argument of every service call. */
export interface AuthContext {
  organizationId: string;
  organizationName: string;
  keyId: string;
  keyPrefix: string;
  scopes: Scope[];
  plan: Plan;
  environment: Environment;
  /** Who acts: absent for an API key (`keyId` says which); a dashboard session names its user and role. */
  actor?: { type: 'user'; id: string; email: string | null };
  role?: Role;
}

export const AUTH_PROPERTY = 'scanlinkAuth';
/** Where the dashboard guard puts the verified session ({organizationId, userId, …}) on the request. */
export const DASHBOARD_SESSION_PROPERTY = 'scanlinkDashboardSession';

/** Controller parameter: the caller's AuthContext. Throws when absent, so no query ever runs unscoped. */
export const Auth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<Record<string, unknown>>();
  const auth = req[AUTH_PROPERTY] as AuthContext | undefined;
  if (!auth) throw new Error('AuthContext missing: route is not behind the API key guard');
  return auth;
});
