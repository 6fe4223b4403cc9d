import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { AUTH_PROPERTY, DASHBOARD_SESSION_PROPERTY, type AuthContext } from '../auth/auth-context';
import { countryOf } from '../geo/geoip';
import { auditScope, SYSTEM_ACTOR, type AuditActor, type AuditScope } from './audit-context';

/** Puts the request's actor (the API key, or the signed-in member), its id and its client's country in the audit
 * scope for the whole handler. The
 * handler's observable is subscribed inside the scope, so every await of the handler sees it. */
@Injectable()
export class AuditScopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<Record<string, unknown> & { id?: string; ip?: string }>();
    const auth = req[AUTH_PROPERTY] as AuthContext | undefined;
    const session = req[DASHBOARD_SESSION_PROPERTY] as { userId: string; email: string | null } | undefined;
    let actor: AuditActor | undefined;
    if (auth?.actor) actor = { type: 'user', id: auth.actor.id, email: auth.actor.email };
    else if (auth) actor = { type: 'api_key', id: auth.keyId };
    else if (session) actor = { type: 'user', id: session.userId, email: session.email };
    // Unauthenticated requests (sign-in, invitations) get a scope too, for the request id and the country; a sign-in
    // names its user as the actor of what it records.
    const ip = typeof req.ip === 'string' ? req.ip : undefined;
    let country: string | null | undefined;
    const scope: AuditScope = {
      actor: actor ?? SYSTEM_ACTOR,
      requestId: typeof req.id === 'string' ? req.id : undefined,
      // Looked up once, only when the request records a change (reads never pay for it).
      ipCountry: () => (country === undefined ? (country = countryOf(ip)) : country),
    };
    return new Observable((subscriber) => auditScope.run(scope, () => next.handle().subscribe(subscriber)));
  }
}
