export const SCOPES = ['qr:read', 'qr:write', 'analytics:read', 'tokens:manage', 'webhooks:read', 'webhooks:write', 'audit:read'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

