import type { EntityManager } from '@mikro-orm/postgresql';
import { currentAuditScope, type AuditActor } from '../../common/audit/audit-context';
import { newId } from '../../common/ids';

export const REDACTED = '[redacted]';

/** Field names whose values never reach the audit log (a time such as `previous_secret_expires_at` is not a secret). */
const SECRET_FIELD = /^(?!.*_at$).*(?:secret|password|hash|token|^key$|api_key|sealed|_enc$|enc$)/i;

export const snake = (s: string): string => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A value as the audit log keeps it: dates as ISO strings, secrets as "[redacted]". */
export function auditValue(field: string, value: unknown): unknown {
  if (value === undefined) return null;
  if (SECRET_FIELD.test(field) && value !== null) return REDACTED;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  return value;
}

export interface AuditInput {
  organizationId: string;
  action: string;
  resource: { type: string; id: string };
  changes?: Record<string, [unknown, unknown]>;
  /** Overrides the audit scope's actor (a sign-in names the user who signed in). */
  actor?: AuditActor;
}

/** Records changes made outside the ORM's unit of work (plain SQL, multi-row inserts) in one statement, on the
 * caller's EntityManager (inside its transaction when it has one); the actor comes from the audit scope. */
export async function recordAudit(em: EntityManager, ...inputs: AuditInput[]): Promise<void> {
  if (inputs.length === 0) return;
  const values: unknown[] = [];
  for (const input of inputs) {
    const scope = input.actor ? { ...currentAuditScope(), actor: input.actor } : currentAuditScope();
    const changes = Object.fromEntries(
      Object.entries(input.changes ?? {}).map(([field, [before, after]]) => [field, [auditValue(field, before), auditValue(field, after)]]),
    );
    values.push(
      newId('aud'),
      input.organizationId,
      scope.actor.type,
      scope.actor.id,
      scope.actor.email ?? null,
      input.action,
      input.resource.type,
      input.resource.id,
      JSON.stringify(changes),
      scope.requestId ?? null,
      scope.ipCountry?.() ?? null,
    );
  }
  await em.execute(
    `insert into audit_log (id, organization_id, actor_type, actor_id, actor_email, action, resource_type, resource_id, changes, request_id, ip_country)
     values ${inputs.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)').join(', ')}`,
    values,
  );
}

/** A created resource as an audit entry's changes: every top-level field of its API shape as [null, value]. */
export function creationChanges(data: object): Record<string, [unknown, unknown]> {
  return Object.fromEntries(
    Object.entries(data)
      .filter(([k]) => k !== 'id' && k !== 'object')
      .map(([k, v]) => [k, [null, v]]),
  );
}
