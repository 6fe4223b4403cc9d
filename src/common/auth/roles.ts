import { SCOPES, type Scope } from './scopes';

/** A member's role in a workspace (docs/members.md). */
export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/** What a dashboard session of each role may do, as API scopes. Owners and admins: everything (admins cannot touch
 * ownership or the plan, checked where those change); editors: codes, folders, templates, batches, files and
 * analytics, and reading the rest; viewers: read only. */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPES,
  admin: SCOPES,
  editor: ['qr:read', 'qr:write', 'analytics:read', 'webhooks:read'],
  viewer: ['qr:read', 'analytics:read', 'webhooks:read'],
};

/** Roles that manage API keys and members. */
export const MANAGER_ROLES: readonly Role[] = ['owner', 'admin'];
