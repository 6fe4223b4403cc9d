import type { AuthContext } from './auth-context';
import type { Role } from './roles';

/** Turns a dashboard session token (a JWT) into the caller's AuthContext with its role's scopes, so that every /v1
 * route takes a session as well as an API key. Provided by the members module; the global guard asks it for any
 * bearer credential that is a JWT rather than an API key. */
export interface SessionAuthenticator {
  authenticate(token: string): Promise<AuthContext>;
  /** Checks, against the database rather than the token, that the session's user is still an active member of the
   * workspace and holds one of `roles` (401 unauthorized when no longer a member, 403 insufficient_scope otherwise);
   * returns the current role. Key and member management call it on every request. */
  requireRole(session: { organizationId: string; userId: string; role?: Role }, roles: readonly Role[]): Promise<Role>;
}

export const SESSION_AUTHENTICATOR = Symbol('SESSION_AUTHENTICATOR');

/** A compact JWS (header.payload.signature): what a session token looks like, as opposed to `qr_live_…`. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
