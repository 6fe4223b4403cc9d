import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { ApiException } from '../errors/api.exception';
import { CursorCodec, queryFingerprint } from './cursor';
import { listOf, ListEnvelope } from './list';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export function parseLimit(raw: unknown): number {
  if (raw === undefined || raw === null) return DEFAULT_PAGE_SIZE;
  const n = typeof raw === 'number' ? raw : /^\d+$/.test(String(raw)) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE) {
    throw ApiException.invalid('limit', `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return n;
}

interface CreatedRow {
  id: string;
  createdAt: Date;
}

/** Keyset page over `created_at desc, id desc` (the order of every list but QR codes). Page N costs what page 1 costs. */
export async function pageByCreatedAt<T extends CreatedRow, R>(
  em: EntityManager,
  entity: new (...args: never[]) => T,
  where: FilterQuery<T>,
  query: { limit?: unknown; cursor?: unknown } & Record<string, unknown>,
  codec: CursorCodec,
  present: (row: T) => R,
): Promise<ListEnvelope<R>> {
  const limit = parseLimit(query.limit);
  const owner = where as { organizationId?: unknown; environment?: unknown };
  if (typeof owner.organizationId !== 'string') throw new Error(`pageByCreatedAt(${entity.name}): the condition must name the workspace`);
  const environment = typeof owner.environment === 'string' ? owner.environment : null;
  const fingerprint = queryFingerprint({ organizationId: owner.organizationId, environment }, { ...query, resource: entity.name });
  const conditions: FilterQuery<T>[] = [where];
  if (query.cursor !== undefined) {
    const pos = codec.decode(String(query.cursor), fingerprint);
    const at = new Date(String(pos.v));
    if (Number.isNaN(at.getTime())) throw ApiException.invalid('cursor', 'Invalid cursor: it is malformed');
    conditions.push({ $or: [{ createdAt: { $lt: at } }, { createdAt: at, id: { $lt: pos.id } }] } as FilterQuery<T>);
  }
  const rows = await em.find(entity, { $and: conditions } as FilterQuery<T>, {
    orderBy: { createdAt: 'desc', id: 'desc' } as never,
    limit: limit + 1,
  });
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const next = hasMore && last ? codec.encode({ v: last.createdAt.toISOString(), id: last.id }, fingerprint) : null;
  return listOf(page.map(present), hasMore, next);
}
