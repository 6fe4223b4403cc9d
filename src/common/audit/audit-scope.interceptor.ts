import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { AUTH_PROPERTY, DASHBOARD_SESSION_PROPERTY, type AuthContext } from '../auth/auth-context';
import { auditScope, type AuditActor } from './audit-context';

/** Puts the request's actor (the API key, or the signed-in member) in the audit scope for the whole handler. The
 * handler's observable is subscribed inside the scope, so every await of the handler sees it. */
@Injectable()
export class AuditScopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Record<string, unknown> & { id?: string }>();
    const auth = req[AUTH_PROPERTY] as AuthContext | undefined;
    const session = req[DASHBOARD_SESSION_PROPERTY] as { userId: string; email: string | null } | undefined;
    let actor: AuditActor | undefined;
    if (auth?.actor) actor = { type: 'user', id: auth.actor.id, email: auth.actor.email };
    else if (auth) actor = { type: 'api_key', id: auth.keyId };
    else if (session) actor = { type: 'user', id: session.userId, email: session.email };
    if (!actor) return next.handle();
    const scope = { actor, requestId: typeof req.id === 'string' ? req.id : undefined };
    return new Observable((subscriber) => auditScope.run(scope, () => next.handle().subscribe(subscriber)));
  }
}
