import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiException } from '../errors/api.exception';
import { AUTH_PROPERTY, AuthContext } from './auth-context';
import { REQUIRED_PLAN_FEATURE, REQUIRED_SCOPE } from './decorators';
import { FREE_RESTRICTED_SCOPES } from './plan';

/** 403 plan_restricted for routes the workspace's plan does not include: on free, every route that needs
 * analytics:read, webhooks:read or webhooks:write; on any plan, a feature the plan lacks (batches). */
@Injectable()
export class PlanGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const targets = [context.getHandler(), context.getClass()];
    const scope = this.reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE, targets);
    const feature = this.reflector.getAllAndOverride<'batches' | undefined>(REQUIRED_PLAN_FEATURE, targets);
    if (!scope && !feature) return true;
    const auth = context.switchToHttp().getRequest<Record<string, unknown>>()[AUTH_PROPERTY] as AuthContext | undefined;
    if (!auth) return true;
    if (scope && auth.plan.id === 'free' && FREE_RESTRICTED_SCOPES.includes(scope)) {
      throw new ApiException('plan_restricted', `The free plan does not include '${scope}' endpoints; upgrade to Plus or higher`, {
        plan_id: auth.plan.id,
      });
    }
    if (feature === 'batches' && !auth.plan.batches) {
      throw new ApiException('plan_restricted', `The ${auth.plan.id} plan does not include batches; upgrade to Plus or higher`, {
        plan_id: auth.plan.id,
      });
    }
    return true;
  }
}
