import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec, queryFingerprint } from '../../common/http/cursor';
import { listOf, type ListEnvelope } from '../../common/http/list';
import { parseLimit } from '../../common/http/pagination';
import type { AuditEntryDto, AuditLogQueryDto } from './audit.dto';

interface Row {
  id: string;
  actor_type: 'user' | 'api_key' | 'system';
  actor_id: string;
  actor_email: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  changes: Record<string, [unknown, unknown]>;
  request_id: string | null;
  ip_country: string | null;
  created_at: string | Date;
}

function present(r: Row): AuditEntryDto {
  return {
    id: r.id,
    object: 'audit_log_entry',
    actor: { type: r.actor_type, id: r.actor_id, ...(r.actor_email ? { email: r.actor_email } : {}) },
    action: r.action,
    resource: { type: r.resource_type, id: r.resource_id },
    changes: typeof r.changes === 'string' ? JSON.parse(r.changes) : r.changes,
    request_id: r.request_id,
    ip_country: r.ip_country,
    created_at: new Date(r.created_at).toISOString(),
  };
}

/** GET /v1/audit-log: newest first, keyset pages, filters by resource, actor, action and time. */
@Injectable()
export class AuditService {
  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
  ) {}

  async list(auth: AuthContext, query: AuditLogQueryDto): Promise<ListEnvelope<AuditEntryDto>> {
    const limit = parseLimit(query.limit);
    const { cursor: _c, limit: _l, ...filters } = query;
    const fingerprint = queryFingerprint(auth, { resource: 'audit_log', ...filters });
    const where = ['organization_id = ?'];
    const params: unknown[] = [auth.organizationId];
    const filter = (sql: string, value: unknown) => {
      where.push(sql);
      params.push(value);
    };
    if (query.resource_id) filter('resource_id = ?', query.resource_id);
    if (query.actor_id) filter('actor_id = ?', query.actor_id);
    if (query.action) filter('action = ?', query.action);
    if (query.from) filter('created_at >= ?', new Date(query.from));
    if (query.to) filter('created_at < ?', new Date(query.to));
    if (query.cursor !== undefined) {
      const pos = this.cursors.decode(query.cursor, fingerprint);
      const at = new Date(String(pos.v));
      if (Number.isNaN(at.getTime())) throw ApiException.invalid('cursor', 'Invalid cursor: it is malformed');
      where.push('(created_at, id) < (?, ?)');
      params.push(at, pos.id);
    }
    params.push(limit + 1);
    const rows = await this.em
      .fork()
      .execute<Row[]>(`select * from audit_log where ${where.join(' and ')} order by created_at desc, id desc limit ?`, params);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = rows.length > limit && last ? this.cursors.encode({ v: new Date(last.created_at).toISOString(), id: last.id }, fingerprint) : null;
    return listOf(page.map(present), rows.length > limit, next);
  }
}
