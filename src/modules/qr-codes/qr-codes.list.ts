import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec, queryFingerprint } from '../../common/http/cursor';
import { listOf, ListEnvelope } from '../../common/http/list';
import { parseLimit } from '../../common/http/pagination';
import type { ListQrCodesQueryDto } from './dto/qr-code.dto';
import type { Environment } from '../../common/auth/api-key-format';
import type { QrKind, QrStatus } from './qr-code.entity';
import type { PresentableCode } from './qr-code.presenter';
import { folderExists } from '../folders/folders.repository';
import type { QrCodeDto } from './dto/qr-code-response.dto';
import { CODE_TYPES } from './code-kinds';

/** Sort key → column (and the property holding it, for the next cursor). Every one has an index
 * (organization_id, status, environment, <column>, id), so each page is a range of one index read in its order: no sort
 * step, and a deep page reads what page 1 reads. */
const SORT_COLUMNS: Record<string, { column: string; prop: keyof PresentableCode; kind: 'time' | 'text' | 'int' }> = {
  created_at: { column: 'created_at', prop: 'createdAt', kind: 'time' },
  updated_at: { column: 'updated_at', prop: 'updatedAt', kind: 'time' },
  name: { column: 'name', prop: 'name', kind: 'text' },
  scan_count: { column: 'scan_count', prop: 'scanCount', kind: 'int' },
  deleted_at: { column: 'deleted_at', prop: 'deletedAt', kind: 'time' },
};

/** GET /v1/qr-codes: filters (docs/api.md "List") and keyset pagination over (sort column, id) in either order, so a deep
 * page costs what the first does and ties never duplicate or skip rows. */
export async function listQrCodes(
  em: EntityManager,
  codec: CursorCodec,
  auth: AuthContext,
  query: ListQrCodesQueryDto,
  present: (code: PresentableCode) => QrCodeDto,
): Promise<ListEnvelope<QrCodeDto>> {
  const limit = parseLimit(query.limit);
  const status = query.status ?? 'all';
  const sortKey = query.sort ?? 'created_at';
  const order = query.order ?? 'desc';
  const kind = query.kind ?? 'all';
  if (sortKey === 'deleted_at' && status !== 'trashed' && status !== 'paused') {
    throw ApiException.invalid('sort', 'sort=deleted_at needs status=trashed or status=paused');
  }
  // A key lists its own environment only (test keys see test codes, live keys live ones).
  const where: string[] = ['organization_id = ?', 'environment = ?'];
  const params: unknown[] = [auth.organizationId, auth.environment];
  switch (status) {
    case 'trashed':
      where.push(`status = 'trashed'`);
      break;
    case 'paused':
      where.push(`status = 'paused'`);
      break;
    case 'active':
      where.push(`status = 'live'`, 'is_active = true');
      break;
    case 'inactive':
      where.push(`status = 'live'`, 'is_active = false', `kind = 'dynamic'`);
      break;
    default:
      where.push(`status = 'live'`);
  }
  if (kind !== 'all') {
    where.push('kind = ?');
    params.push(kind);
  }
  if (query.folder_id) {
    if (!(await folderExists(em, auth, query.folder_id))) throw new ApiException('not_found', `No such folder: '${query.folder_id}'`, { field: 'folder_id' });
    where.push('folder_id = ?');
    params.push(query.folder_id);
  }
  if (query.search !== undefined && query.search !== '') {
    where.push(`lower(name) like ? escape '\\'`);
    params.push(`%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (query.tag !== undefined && query.tag !== '') {
    where.push('? = any(tags)');
    params.push(query.tag);
  }
  if (query.type !== undefined && query.type !== '') {
    if (!CODE_TYPES.includes(query.type)) throw ApiException.invalid('type', `type must be one of ${CODE_TYPES.join(', ')}`);
    where.push('type = ?');
    params.push(query.type);
  }
  const sort = SORT_COLUMNS[sortKey];
  const fingerprint = queryFingerprint(auth, { kind, status, sort: sortKey, order, folder_id: query.folder_id, search: query.search, tag: query.tag, type: query.type });
  if (query.cursor !== undefined) {
    const pos = codec.decode(query.cursor, fingerprint);
    const cmp = order === 'asc' ? '>' : '<';
    if (pos.v === null) throw ApiException.invalid('cursor', 'Invalid cursor: it is malformed');
    const value = sort.kind === 'time' ? new Date(String(pos.v)) : sort.kind === 'int' ? String(pos.v) : String(pos.v);
    if (value instanceof Date && Number.isNaN(value.getTime())) throw ApiException.invalid('cursor', 'Invalid cursor: it is malformed');
    where.push(`(${sort.column}, id) ${cmp} (?, ?)`);
    params.push(value, pos.id);
  }
  const dir = order === 'asc' ? 'asc' : 'desc';
  const rows = await em.execute<ListRow[]>(
    `select ${LIST_COLUMNS} from qr_codes where ${where.join(' and ')} order by ${sort.column} ${dir}, id ${dir} limit ?`,
    [...params, limit + 1],
  );
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit).map(listedCode);
  const last = page[page.length - 1];
  let next: string | null = null;
  if (hasMore && last) {
    const raw: unknown = last[sort.prop];
    const v = raw instanceof Date ? raw.toISOString() : raw === null || raw === undefined ? null : String(raw);
    next = codec.encode({ v, id: last.id }, fingerprint);
  }
  return listOf(page.map(present), hasMore, next);
}

/** The columns a listed code is presented from (not the whole row: no GS1 key, file id or scan time). */
const LIST_COLUMNS = `id, kind, name, type, short_code, domain_id, domain_hostname, target, design, folder_id, tags, image_key, logo_key,
  is_active, scan_count, lead_count, expires_at, max_scans, expired_url, password_hash, environment, status, deleted_at, created_at, updated_at`;

interface ListRow {
  id: string;
  kind: QrKind;
  name: string;
  type: string;
  short_code: string;
  domain_id: string | null;
  domain_hostname: string | null;
  target: Record<string, unknown>;
  design: object;
  folder_id: string | null;
  tags: string[];
  image_key: string | null;
  logo_key: string | null;
  is_active: boolean;
  scan_count: string | number;
  lead_count: number;
  expires_at: string | Date | null;
  max_scans: number | null;
  expired_url: string | null;
  password_hash: string | null;
  environment: Environment;
  status: QrStatus;
  deleted_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

const dateOrNull = (v: string | Date | null): Date | null => (v === null ? null : new Date(v));

/** A row as the presenter reads it, built directly: a page of 100 codes is not hydrated into managed entities
 * (identity map, change-tracking snapshots) that the request would only read once. */
function listedCode(r: ListRow): PresentableCode {
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    type: r.type,
    shortCode: r.short_code,
    domainId: r.domain_id,
    domainHostname: r.domain_hostname,
    target: r.target,
    design: r.design,
    folderId: r.folder_id,
    tags: r.tags,
    imageKey: r.image_key,
    logoKey: r.logo_key,
    isActive: r.is_active,
    scanCount: Number(r.scan_count),
    leadCount: r.lead_count,
    expiresAt: dateOrNull(r.expires_at),
    maxScans: r.max_scans,
    expiredUrl: r.expired_url,
    passwordHash: r.password_hash,
    environment: r.environment,
    status: r.status,
    deletedAt: dateOrNull(r.deleted_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}
