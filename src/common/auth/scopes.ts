export const SCOPES = ['qr:read', 'qr:write', 'analytics:read', 'tokens:manage', 'webhooks:read', 'webhooks:write', 'audit:read'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

/** What a key gets when created without `scopes`: the API's scope table. `audit:read` (the audit log names members and
 * what they did) is granted only when asked for. */
export const DEFAULT_KEY_SCOPES: readonly Scope[] = SCOPES.filter((s) => s !== 'audit:read');
