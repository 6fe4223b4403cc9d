/**
 * The session token (a 15-minute JWT) lives in this module's memory only: never in localStorage, sessionStorage or a
 * readable cookie. A reload starts without it and asks `POST /v1/session/refresh` (the httpOnly refresh cookie) for a
 * new one. Subscribers (the SessionProvider) hear about every change.
 */
export interface SessionInfo {
  token: string;
  expiresAt: string;
  user: { id: string; email: string; name: string | null };
  organizationId: string;
  role: string;
}

let current: SessionInfo | null = null;
const listeners = new Set<(s: SessionInfo | null) => void>();

export function getSession(): SessionInfo | null {
  return current;
}

export function setSession(next: SessionInfo | null): void {
  current = next;
  for (const l of listeners) l(next);
}

export function onSessionChange(listener: (s: SessionInfo | null) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The API's session answer (sign-in, link verify, refresh, switch, invitation accept) as SessionInfo. */
export function fromSessionAnswer(body: unknown): SessionInfo {
  const b = body as { token: string; expires_at: string; user: SessionInfo['user']; organization_id: string; role: string };
  return { token: b.token, expiresAt: b.expires_at, user: b.user, organizationId: b.organization_id, role: b.role };
}
