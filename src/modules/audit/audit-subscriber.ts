import type { ChangeSet, EventSubscriber, FlushEventArgs, Platform } from '@mikro-orm/core';
import { currentAuditScope } from '../../common/audit/audit-context';
import { AuditEntry } from './audit-entry.entity';
import { auditValue, snake } from './audit.repository';

/** Entities whose changes are audited, by class name → resource type. Rows that record what happened rather than
 * what someone changed (events, deliveries, batch items, the audit log itself) are not. */
const RESOURCES: Record<string, string> = {
  Organization: 'organization',
  ApiKey: 'api_key',
  Folder: 'folder',
  QrCode: 'qr_code',
  WebhookEndpoint: 'webhook_endpoint',
  Batch: 'batch',
  Domain: 'domain',
  UploadedFile: 'file',
  Template: 'template',
};

/** Bookkeeping columns that change on their own. */
const IGNORED = new Set(['updatedAt', 'createdAt', 'lastUsedAt', 'scanCount', 'leadCount', 'lastScanAt', 'consecutiveFailures', 'failingSince']);

/**
 * The audit log's central hook: every change the ORM flushes (updates of codes, folders, webhooks, keys, domains,
 * templates, files, batches, workspaces) becomes one audit entry per row with the changed fields' before and after
 * values, written in the same flush (the same transaction) as the change itself. The actor is the audit scope's.
 */
export class AuditSubscriber implements EventSubscriber {
  onFlush(args: FlushEventArgs): void {
    const entries: AuditEntry[] = [];
    const platform = args.em.getPlatform();
    for (const cs of args.uow.getChangeSets()) {
      const entry = this.entryFor(cs as ChangeSet<Record<string, unknown>>, platform);
      if (entry) entries.push(entry);
    }
    for (const entry of entries) {
      args.em.persist(entry);
      args.uow.computeChangeSet(entry);
    }
  }

  private entryFor(cs: ChangeSet<Record<string, unknown>>, platform: Platform): AuditEntry | undefined {
    const type = RESOURCES[cs.meta.className];
    if (!type) return undefined;
    const entity = cs.entity;
    const organizationId = (type === 'organization' ? entity.id : entity.organizationId) as string | undefined;
    if (!organizationId || typeof entity.id !== 'string') return undefined;
    const changes: Record<string, [unknown, unknown]> = {};
    let verb: string;
    if (cs.type === 'create' || cs.type === 'delete') {
      // Every field: from null on creation, to null on deletion.
      verb = cs.type === 'create' ? 'created' : 'deleted';
      for (const prop of cs.meta.props) {
        if (prop.kind !== 'scalar' || IGNORED.has(prop.name) || prop.name === 'id' || prop.name === 'organizationId') continue;
        const field = snake(prop.name);
        const value = auditValue(field, entity[prop.name]);
        changes[field] = cs.type === 'create' ? [null, value] : [value, null];
      }
    } else if (cs.type === 'update') {
      verb = 'updated';
      const before = (cs.originalEntity ?? {}) as Record<string, unknown>;
      for (const key of Object.keys(cs.payload ?? {})) {
        if (IGNORED.has(key)) continue;
        const field = snake(key);
        // The original data holds JSON columns serialized and PostgreSQL arrays as array literals (`{a,b}`); compare
        // and record them as values.
        let original = before[key];
        if (typeof original === 'string' && Array.isArray(entity[key])) {
          original = original.startsWith('{') ? platform.unmarshallArray(original) : parseJson(original);
        } else if (typeof original === 'string' && entity[key] !== null && typeof entity[key] === 'object' && !(entity[key] instanceof Date)) {
          original = parseJson(original);
        }
        // Compared as stored, recorded as auditValue shows them: a secret that changed is "[redacted]" on both sides.
        if (JSON.stringify(auditValue('', original)) === JSON.stringify(auditValue('', entity[key]))) continue;
        changes[field] = [auditValue(field, original), auditValue(field, entity[key])];
      }
      if (Object.keys(changes).length === 0) return undefined;
      if (type === 'qr_code' && 'deleted_at' in changes) verb = changes.deleted_at[1] ? 'deleted' : 'restored';
      if (type === 'api_key' && 'revoked_at' in changes && changes.revoked_at[1]) verb = 'revoked';
    } else {
      return undefined;
    }
    const scope = currentAuditScope();
    const entry = new AuditEntry();
    Object.assign(entry, {
      organizationId,
      actorType: scope.actor.type,
      actorId: scope.actor.id,
      actorEmail: scope.actor.email ?? null,
      action: `${type}.${verb}`,
      resourceType: type,
      resourceId: entity.id,
      changes,
      requestId: scope.requestId ?? null,
      ipCountry: scope.ipCountry?.() ?? null,
    });
    return entry;
  }
}

/** A JSON column's serialized original, or the string itself when it is not JSON. */
function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
