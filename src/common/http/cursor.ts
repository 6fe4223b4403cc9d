import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiException } from '../errors/api.exception';

/** Position of the last row of a page: its sort value and its id (the tiebreak). */
export interface CursorPosition {
  /** the sort column's value of the last row (string, number or null) */
  v: string | number | null;
  id: string;
}

/** The workspace (and environment) a list belongs to. */
export interface ListOwner {
  organizationId: string;
  environment?: string | null;
}

/**
 * Fingerprint of the query a cursor belongs to, and of the workspace and environment it lists: a cursor reused with
 * other filters or sort, or by another workspace or a key of the other environment, is refused.
 */
export function queryFingerprint(owner: ListOwner, query: Record<string, unknown>): string {
  const keys = Object.keys(query).filter((k) => k !== 'cursor' && k !== 'limit' && query[k] !== undefined).sort();
  const canonical = JSON.stringify([owner.organizationId, owner.environment ?? null, keys.map((k) => [k, query[k]])]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

/** Opaque keyset cursors, HMAC-signed so they cannot be forged or edited. */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  encode(position: CursorPosition, fingerprint: string): string {
    const payload = Buffer.from(JSON.stringify({ v: position.v, id: position.id, q: fingerprint })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(cursor: string, fingerprint: string): CursorPosition {
    const bad = (why: string) => ApiException.invalid('cursor', `Invalid cursor: ${why}`);
    if (typeof cursor !== 'string' || cursor.length > 1024) throw bad('it is malformed');
    const [payload, sig, extra] = cursor.split('.');
    if (!payload || !sig || extra !== undefined) throw bad('it is malformed');
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw bad('it was altered or was not issued by this API');
    let parsed: { v?: unknown; id?: unknown; q?: unknown };
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw bad('it is malformed');
    }
    if (parsed.q !== fingerprint) throw bad('it belongs to a query with other filters or sort order, or to another workspace');
    const v = parsed.v;
    if (typeof parsed.id !== 'string' || !(v === null || typeof v === 'string' || typeof v === 'number')) throw bad('it is malformed');
    return { v, id: parsed.id };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(`cursor:${payload}`).digest('base64url').slice(0, 22);
  }
}
