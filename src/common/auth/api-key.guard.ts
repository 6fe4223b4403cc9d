import { ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiException } from '../errors/api.exception';
import { RateLimiter, RateLimitState } from '../http/rate-limiter';
import { AUTH_PROPERTY, AuthContext } from './auth-context';
import { DASHBOARD_ROUTE, PUBLIC_ROUTE, SESSION_ROUTE, UNMETERED_ROUTE } from './decorators';
import { looksLikeJwt, SESSION_AUTHENTICATOR, SessionAuthenticator } from './session-authenticator';

interface Probe {
  headers: { authorization?: string };
  query: Record<string, never>;
  body: Record<string, never>;
  user?: AuthContext;
}

export function setRateLimitHeaders(reply: FastifyReply, state: RateLimitState): void {
  void reply.header('RateLimit-Limit', String(state.limit));
  void reply.header('RateLimit-Remaining', String(state.remaining));
  void reply.header('RateLimit-Reset', String(state.reset));
}

/** `Authorization: Bearer Bearer <key>`: the key was pasted with its scheme into a client that adds the scheme itself
 * (Swagger UI's Authorize dialog does). Said plainly, since "missing" or "malformed" would send the user elsewhere. */
const DOUBLED_BEARER = /^\s*Bearer\s+Bearer(\s|$)/i;
const DOUBLED_BEARER_MESSAGE =
  'The Authorization header says "Bearer" twice ("Bearer Bearer <API key>"): send "Authorization: Bearer <API key>". ' +
  'In Swagger UI\'s Authorize dialog paste the key alone; it adds "Bearer " itself.';

/** Global guard: resolves `Authorization: Bearer <API key>` through passport-http-bearer into the AuthContext, then
 * counts the request against the key's rate limit. Passport only sees the Authorization header (never a key in the
 * query string or body, which would end up in logs). A bearer JWT is a dashboard session: the session authenticator
 * (members module) resolves it into an AuthContext carrying the member's role scopes. Routes marked @SessionAuth take
 * sessions only. */
@Injectable()
export class ApiKeyGuard extends AuthGuard('api-key') {
  constructor(
    private readonly reflector: Reflector,
    private readonly rateLimiter: RateLimiter,
    @Optional() @Inject(SESSION_AUTHENTICATOR) private readonly sessions?: SessionAuthenticator,
  ) {
    super({ session: false });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const http = context.switchToHttp();
    if (this.reflector.getAllAndOverride<boolean>(DASHBOARD_ROUTE, targets)) {
      // Key management takes a dashboard session token (checked by the route's own guard); counted per client address.
      const state = await this.rateLimiter.consumeDashboard(http.getRequest<FastifyRequest>().ip).catch(() => undefined);
      if (state) setRateLimitHeaders(http.getResponse<FastifyReply>(), state);
      if (state?.exceeded) {
        throw new ApiException('rate_limited', `Too many key-management requests: at most ${state.limit} per minute`, { retryAfter: state.reset, limit: state.limit });
      }
      return true;
    }
    const req = http.getRequest<FastifyRequest & { scanlinkProbe?: Probe } & Record<string, unknown>>();
    req.scanlinkProbe = { headers: { authorization: req.headers.authorization }, query: {}, body: {} };
    const reply = http.getResponse<FastifyReply>();
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const sessionOnly = this.reflector.getAllAndOverride<boolean>(SESSION_ROUTE, targets) === true;
    try {
      if (bearer && this.sessions && looksLikeJwt(bearer)) {
        req.scanlinkProbe.user = await this.sessions.authenticate(bearer);
      } else if (sessionOnly) {
        throw new ApiException(
          'unauthorized',
          bearer ? 'This endpoint takes a dashboard session token, not an API key' : 'A dashboard session token is required: send "Authorization: Bearer <JWT>"',
        );
      } else {
        await super.canActivate(context);
      }
    } catch (err) {
      // No valid key: counted per client address; past the anonymous limit the answer is 429 instead of 401.
      const state = await this.rateLimiter.consumeAnonymous(req.ip).catch(() => undefined);
      if (state) setRateLimitHeaders(reply, state);
      if (state?.exceeded) {
        throw new ApiException('rate_limited', `Too many requests without a valid API key: at most ${state.limit} per minute`, {
          retryAfter: state.reset,
          limit: state.limit,
        });
      }
      throw err;
    }
    const auth = req.scanlinkProbe.user as AuthContext;
    req[AUTH_PROPERTY] = auth;
    if (this.reflector.getAllAndOverride<boolean>(UNMETERED_ROUTE, targets)) return true;
    try {
      setRateLimitHeaders(reply, await this.rateLimiter.consume(auth));
    } catch (err) {
      const state = (err as { rateLimit?: RateLimitState }).rateLimit;
      if (state) setRateLimitHeaders(reply, state);
      throw err;
    }
    return true;
  }

  override getRequest(context: ExecutionContext): Probe {
    return context.switchToHttp().getRequest<{ scanlinkProbe: Probe }>().scanlinkProbe;
  }

  override handleRequest<TUser = AuthContext>(err: unknown, user: TUser, info: unknown, context?: ExecutionContext): TUser {
    const header = err || !user ? context?.switchToHttp().getRequest<FastifyRequest>().headers.authorization : undefined;
    if (typeof header === 'string' && DOUBLED_BEARER.test(header)) throw new ApiException('unauthorized', DOUBLED_BEARER_MESSAGE);
    if (err) throw err;
    if (!user) {
      // passport-http-bearer reports "Basic …" or "Bearer  <key>" (two spaces) as no credentials: a header was sent,
      // so it is malformed, not missing.
      if (info === 400 || (typeof header === 'string' && header.trim() !== '')) {
        throw new ApiException('unauthorized', 'Malformed Authorization header: expected "Bearer <API key>"');
      }
      throw new ApiException('unauthorized', 'Missing API key: send it as "Authorization: Bearer <API key>"');
    }
    return user;
  }
}
