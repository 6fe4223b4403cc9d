import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import type { Environment } from '../../common/auth/api-key-format';
import { LEAD_TYPES } from '../targets/registry';

/**
 * What other modules may read or write of qr_codes, each on the caller's EntityManager (often inside its transaction).
 * qr-codes owns the table: any other statement on it belongs here.
 */

/** A dynamic code as the scan host and the lead form read it by its short code. */
export interface CodeByShortCode {
  id: string;
  organizationId: string;
  environment: Environment;
  shortCode: string;
  name: string;
  kind: string;
  type: string;
  target: Record<string, unknown>;
  status: string;
  isActive: boolean;
  /** counted scans stored so far (the scan host's scan numbers start from it) */
  scanCount: number;
  /** link controls (docs/link-controls.md): epoch ms or null */
  expiresAt: number | null;
  maxScans: number | null;
  expiredUrl: string | null;
  /** null without a password; else a tag derived from its hash (changes with the password; the hash stays here) */
  passwordTag: string | null;
}

interface CodeRow {
  id: string;
  organization_id: string;
  environment: Environment;
  short_code: string;
  name: string;
  kind: string;
  type: string;
  target: Record<string, unknown> | string;
  status: string;
  is_active: boolean;
  scan_count: string | number;
  expires_at: Date | string | null;
  max_scans: number | null;
  expired_url: string | null;
  password_tag: string | null;
}

const CODE_COLUMNS = `id, organization_id, environment, short_code, name, kind, type, target, status, is_active, scan_count, expires_at,
       max_scans, expired_url, case when password_hash is null then null else left(md5(password_hash), 16) end as password_tag`;

/** The code with this short code on a host (`domainId` null = the default scan host), whatever its kind and state;
 * null when there is none. Short codes are unique per host (the unique index on (coalesce(domain_id, ''), short_code),
 * which this query matches). */
export async function findByShortCode(em: EntityManager, domainId: string | null, shortCode: string): Promise<CodeByShortCode | null> {
  const rows = await em.execute<CodeRow[]>(
    `select ${CODE_COLUMNS}
       from qr_codes where coalesce(domain_id, '') = ? and short_code = ?`,
    [domainId ?? '', shortCode],
  );
  return rows[0] ? codeOf(rows[0]) : null;
}

/** The dynamic GS1 code with this identifier (gs1_key) on a host (`domainId` null = the default scan host): the live
 * one, else the trashed one, else the newest paused one (paused codes do not hold their identifier); null when there
 * is none. */
export async function findByGs1Key(em: EntityManager, domainId: string | null, gs1Key: string): Promise<CodeByShortCode | null> {
  const rows = await em.execute<CodeRow[]>(
    `select ${CODE_COLUMNS}
       from qr_codes where coalesce(domain_id, '') = ? and gs1_key = ? and kind = 'dynamic'
      order by case status when 'live' then 0 when 'trashed' then 1 else 2 end, updated_at desc limit 1`,
    [domainId ?? '', gs1Key],
  );
  return rows[0] ? codeOf(rows[0]) : null;
}

function codeOf(row: CodeRow): CodeByShortCode {
  return {
    id: row.id,
    organizationId: row.organization_id,
    environment: row.environment,
    shortCode: row.short_code,
    name: row.name,
    kind: row.kind,
    type: row.type,
    target: typeof row.target === 'string' ? (JSON.parse(row.target) as Record<string, unknown>) : row.target,
    status: row.status,
    isActive: row.is_active,
    scanCount: Number(row.scan_count),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at).getTime(),
    maxScans: row.max_scans,
    expiredUrl: row.expired_url,
    passwordTag: row.password_tag,
  };
}

/** Which of these ids are taken by a code (any workspace, any status). */
export async function existingCodeIds(em: EntityManager, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await em.execute<{ id: string }[]>(`select id from qr_codes where id in (${ids.map(() => '?').join(', ')})`, ids);
  return new Set(rows.map((r) => r.id));
}

export async function codeExists(em: EntityManager, id: string): Promise<boolean> {
  const [row] = await em.execute<{ n: number }[]>('select 1 as n from qr_codes where id = ?', [id]);
  return row !== undefined;
}

/** Kind and creation time of a live code of the workspace in the key's environment (analytics' range starts there);
 * null when not found. */
export async function findLiveCodeFacts(
  em: EntityManager,
  scope: Pick<AuthContext, 'organizationId' | 'environment'>,
  id: string,
): Promise<{ kind: string; createdAt: Date } | null> {
  const [row] = await em.execute<{ kind: string; created_at: Date | string }[]>(
    `select kind, created_at from qr_codes where id = ? and organization_id = ? and environment = ? and status = 'live'`,
    [id, scope.organizationId, scope.environment],
  );
  return row ? { kind: row.kind, createdAt: new Date(row.created_at) } : null;
}

/** Counts a lead on a form code while it is still live, active, dynamic and of a type that takes leads (form); false
 * when it is not any more. */
export async function countLead(em: EntityManager, codeId: string): Promise<boolean> {
  const counted = await em.execute<Array<{ id: string }>>(
    `update qr_codes set lead_count = lead_count + 1
      where id = ? and status = 'live' and is_active and kind = 'dynamic' and type in (${LEAD_TYPES.map(() => '?').join(', ')}) returning id`,
    [codeId, ...LEAD_TYPES],
  );
  return counted.length > 0;
}

/**
 * The two parts of scan ingestion's single statement (analytics/scan-store.ts) that touch qr_codes, as CTE bodies.
 * They stay here, with the table's other statements, and are composed into that statement rather than run apart, so
 * an entry costs one round trip and returns one row.
 */
export const scanIngestSql = {
  /** The dynamic codes named by `input.qr_code_id`, locked in id order (two workers storing scans of the same codes
   * queue up instead of deadlocking on their rollup rows). The lock mode (no key update) does not block the
   * foreign-key checks of concurrent scan inserts or lead writes. Columns: id, organization_id, environment. */
  lockCodes: (input: string): string => `select id, organization_id, environment from qr_codes
   where id in (select qr_code_id from ${input}) and kind = 'dynamic'
   order by id
     for no key update`,
  /** Adds the rows of `ins` (qr_code_id, scanned_at) to the codes' scan_count and last_scan_at. */
  addScans: (ins: string): string => `update qr_codes q
     set scan_count = q.scan_count + s.n, last_scan_at = greatest(q.last_scan_at, s.last_at)
    from (select qr_code_id, count(*) as n, max(scanned_at) as last_at from ${ins} group by 1) s
   where q.id = s.qr_code_id
  returning 1`,
};

/** A code as analytics reads it: identity, creation time and its smart-URL rule names (target.rules[].name). */
export interface AnalyticsCodeFacts {
  id: string;
  name: string;
  kind: string;
  createdAt: Date;
  ruleNames: [string, string | null][];
}

/**
 * Live codes of the caller's workspace and environment for analytics: the listed ids (if any), narrowed by folder,
 * tag and target type. Unknown or foreign ids are simply absent (the caller answers 404).
 */
export async function findAnalyticsCodes(
  em: EntityManager,
  scope: Pick<AuthContext, 'organizationId' | 'environment'>,
  sel: { ids?: string[]; folderId?: string; tag?: string; type?: string },
): Promise<AnalyticsCodeFacts[]> {
  const rows = await em.execute<{ id: string; name: string; kind: string; created_at: Date | string; rules: [string, string | null][] | string }[]>(
    `select id, name, kind, created_at,
            coalesce((select json_agg(json_build_array(r->>'id', r->>'name'))
                        from jsonb_array_elements(case when jsonb_typeof(target->'rules') = 'array' then target->'rules' else '[]'::jsonb end) r
                       where r->>'id' is not null), '[]'::json) as rules
       from qr_codes
      where organization_id = ? and environment = ? and status = 'live'
        and (?::jsonb is null or id in (select jsonb_array_elements_text(?::jsonb)))
        and (?::text is null or folder_id = ?)
        and (?::text is null or ? = any(tags))
        and (?::text is null or type = ?)
      order by id`,
    [
      scope.organizationId,
      scope.environment,
      sel.ids ? JSON.stringify(sel.ids) : null,
      sel.ids ? JSON.stringify(sel.ids) : null,
      sel.folderId ?? null,
      sel.folderId ?? null,
      sel.tag ?? null,
      sel.tag ?? null,
      sel.type ?? null,
      sel.type ?? null,
    ],
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    kind: r.kind,
    createdAt: new Date(r.created_at),
    ruleNames: typeof r.rules === 'string' ? (JSON.parse(r.rules) as [string, string | null][]) : r.rules,
  }));
}

/** Dynamic codes of the caller's workspace and environment that analytics leave out (trashed or paused): the workspace
 * rollups count them, so a whole-workspace answer takes their per-code rollups back out. */
export async function inactiveDynamicCodeIds(em: EntityManager, scope: Pick<AuthContext, 'organizationId' | 'environment'>): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select id from qr_codes where organization_id = ? and environment = ? and kind = 'dynamic' and status <> 'live' order by id`,
    [scope.organizationId, scope.environment],
  );
  return rows.map((r) => r.id);
}

/** Dynamic codes of the caller's workspace and environment other than `ids` (whatever their status), or null when
 * there are more than `limit` of them: what an answer over `ids` from the workspace rollups takes back out. */
export async function otherDynamicCodeIds(
  em: EntityManager,
  scope: Pick<AuthContext, 'organizationId' | 'environment'>,
  ids: string[],
  limit: number,
): Promise<string[] | null> {
  const rows = await em.execute<{ id: string }[]>(
    `select id from qr_codes
      where organization_id = ? and environment = ? and kind = 'dynamic' and id <> all(array(select jsonb_array_elements_text(?::jsonb)))
      order by id limit ?`,
    [scope.organizationId, scope.environment, JSON.stringify(ids), limit + 1],
  );
  return rows.length > limit ? null : rows.map((r) => r.id);
}

/** The argon2id hash of a code's password (link controls), or null: read only to check a password a visitor typed. */
export async function passwordHashOf(em: EntityManager, codeId: string): Promise<string | null> {
  const rows = await em.execute<{ password_hash: string | null }[]>('select password_hash from qr_codes where id = ?', [codeId]);
  return rows[0]?.password_hash ?? null;
}
