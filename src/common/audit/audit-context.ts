import { AsyncLocalStorage } from 'node:async_hooks';

/** Who makes a change, as the audit log records it. */
export interface AuditActor {
  type: 'user' | 'api_key' | 'system';
  id: string;
  email?: string | null;
}

export interface AuditScope {
  actor: AuditActor;
  requestId?: string;
  /** The country of the request's client address (ISO 3166-1 alpha-2), looked up when an entry is first written;
   * the address itself never reaches the audit log. */
  ipCountry?: () => string | null;
}

/** The actor of the work under way: set around each API request (after authentication), each CLI command and each
 * MCP session; the audit log reads it wherever a change is written. Work outside any scope (worker jobs) is `system`. */
export const auditScope = new AsyncLocalStorage<AuditScope>();

export const SYSTEM_ACTOR: AuditActor = { type: 'system', id: 'system' };

export function currentAuditScope(): AuditScope {
  return auditScope.getStore() ?? { actor: SYSTEM_ACTOR };
}

/** Runs `fn` with this actor (the CLI: `{type: 'system', id: 'cli'}`; an MCP tool call: its key). Inside a request
 * (MCP over HTTP), the request's id and country stay. */
export function asActor<T>(actor: AuditActor, fn: () => T, requestId?: string): T {
  const outer = auditScope.getStore();
  return auditScope.run({ actor, requestId: requestId ?? outer?.requestId, ipCountry: outer?.ipCountry }, fn);
}
