import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiException } from '../errors/api.exception';
import { AUTH_PROPERTY, AuthContext } from './auth-context';
import { MANAGERS_ROUTE, REQUIRED_SCOPE } from './decorators';
import { MANAGER_ROLES } from './roles';
import type { Scope } from './scopes';

/** 403 insufficient_scope when the key lacks the scope the route declares with @RequiresScope, or when a route marked
 * @ManagersOnly gets a session of an editor or a viewer. */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const scope = this.reflector.getAllAndOverride<Scope | undefined>(REQUIRED_SCOPE, [context.getHandler(), context.getClass()]);
    if (!scope) return true;
    const auth = context.switchToHttp().getRequest<Record<string, unknown>>()[AUTH_PROPERTY] as AuthContext | undefined;
    if (!auth) throw new ApiException('unauthorized', 'Missing API key');
    if (!auth.scopes.includes(scope)) {
      throw new ApiException(
        'insufficient_scope',
        auth.role
          ? `The ${auth.role} role lacks the '${scope}' scope required by this endpoint`
          : `This API key lacks the '${scope}' scope required by this endpoint`,
      );
    }
    if (auth.role && !MANAGER_ROLES.includes(auth.role) && this.reflector.getAllAndOverride<boolean>(MANAGERS_ROUTE, [context.getHandler(), context.getClass()])) {
      throw new ApiException('insufficient_scope', `This needs the owner or admin role; you are ${auth.role === 'editor' ? 'an' : 'a'} ${auth.role}`);
    }
    return true;
  }
}
