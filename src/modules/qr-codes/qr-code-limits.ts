import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { gs1Kind, type Gs1Kind } from '../gs1/gs1-kind';
import { lockCapacity } from './capacity.repository';
import { gs1PrimaryHeldByOther, gs1PrimaryOf, hasGrantedPrefix } from './gs1-ownership.repository';

/** Which plan count a live code takes: GS1 dynamic codes have a limit of their own (`gs1_limit`), apart from the QR
 * limit (`dynamic_qr_limit`); static codes (GS1 included) take none. */
export type PlanCount = 'dynamic' | Gs1Kind['planCount'];

export const planCountOf = (code: { kind: string; type: string }): PlanCount | null =>
  code.kind !== 'dynamic' ? null : gs1Kind.owns(code) ? gs1Kind.planCount : 'dynamic';

const limitOf = (auth: AuthContext, which: PlanCount): number => (which === 'dynamic' ? auth.plan.dynamic_qr_limit : auth.plan.gs1_limit);

/** Locks the workspace row so plan counts cannot race, then counts its live codes of that count, including the room
 * reserved for accepted batches still creating theirs (capacity.repository.ts). */
export async function countLive(em: EntityManager, organizationId: string, which: PlanCount, exceptBatch?: string): Promise<number> {
  const { live, reserved, gs1Live, gs1Reserved } = await lockCapacity(em, organizationId, exceptBatch);
  return which === 'dynamic' ? live + reserved : gs1Live + gs1Reserved;
}

export function planLimitError(auth: AuthContext, current: number, requested = 1, which: PlanCount = 'dynamic'): ApiException {
  const limit = limitOf(auth, which);
  const what = which === 'dynamic' ? 'live dynamic QR codes' : 'live dynamic GS1 codes';
  return new ApiException('plan_limit_reached', `The ${auth.plan.id} plan allows ${limit} ${what}; ${current} exist`, {
    limit,
    current_count: current,
    requested,
    plan_id: auth.plan.id,
  });
}

/** 403 plan_limit_reached unless `count` more codes of that count fit (the count includes batch reservations, except
 * `exceptBatch`'s own when a batch item asks; locks the workspace row: call inside the transaction that inserts). */
export async function assertRoomFor(em: EntityManager, auth: AuthContext, which: PlanCount, count = 1, exceptBatch?: string): Promise<void> {
  const current = await countLive(em, auth.organizationId, which, exceptBatch);
  if (current + count > limitOf(auth, which)) throw planLimitError(auth, current, count, which);
}

/** 403 plan_restricted when the plan has no room at all for that count (free: static codes only). */
export function assertEntitled(auth: AuthContext, which: PlanCount): void {
  if (limitOf(auth, which) > 0) return;
  if (which !== 'dynamic') {
    throw new ApiException('plan_restricted', `The ${auth.plan.id} plan includes static GS1 codes only; create it with mode 'static' or upgrade`, {
      plan_id: auth.plan.id,
      gs1_code: 'NOT_ENTITLED',
    });
  }
  throw new ApiException('plan_restricted', `The ${auth.plan.id} plan includes static codes only; create it with type 'static' or upgrade`, { plan_id: auth.plan.id });
}

const hostKey = (domainId: string | null): string => domainId ?? '';

/** The host a retirement is kept under: the custom domain's host name (lower case), or '' for the default scan host. */
export const gs1RetirementKey = (hostname: string | null): string => (hostname ?? '').toLowerCase();

/**
 * 409 when a dynamic GS1 identifier cannot be used on that host by that workspace: a live or trashed code holds it
 * (gs1_identifier_taken), another workspace holds any identifier under the same primary key (gs1_identifier_taken:
 * the first workspace owns the primary key's whole subtree), or a permanently deleted code retired it less than
 * GS1_RETIREMENT_DAYS ago (gs1_identifier_retired). Across workspaces: the host resolves the identifier, whoever owns
 * the code. Retirement is kept by host name (gs1RetirementKey), so it outlives the custom domain: a host name deleted
 * and claimed again, by any workspace, still refuses the identifier.
 */
export async function assertGs1IdentifierFree(em: EntityManager, domain: { id: string; hostname: string } | null, gs1Key: string, organizationId: string, exceptId?: string): Promise<void> {
  const domainId = domain?.id ?? null;
  const [row] = await em.execute<{ taken: boolean; retired: boolean }[]>(
    `select exists (select 1 from qr_codes where coalesce(domain_id, '') = ? and gs1_key = ? and status in ('live','trashed') and id <> ?) as taken,
            exists (select 1 from gs1_retired_identifiers where domain_key = ? and gs1_key = ? and retired_until > now()) as retired`,
    [hostKey(domainId), gs1Key, exceptId ?? '', gs1RetirementKey(domain?.hostname ?? null), gs1Key],
  );
  if (row.taken) throw gs1TakenError(gs1Key);
  if (await gs1PrimaryHeldByOther(em, domainId, gs1Key, organizationId)) throw gs1OwnedError(gs1Key);
  if (row.retired) {
    throw new ApiException('gs1_identifier_retired', `The GS1 identifier ${gs1Key} was retired on this host when its code was deleted permanently; it cannot be used again yet`, {
      field: 'primary_key',
      gs1_code: 'GS1_IDENTIFIER_RETIRED',
    });
  }
}

export const gs1TakenError = (gs1Key: string): ApiException =>
  new ApiException('gs1_identifier_taken', `A GS1 code for ${gs1Key} already exists on this host (live or in the Trash)`, {
    field: 'primary_key',
    gs1_code: 'GS1_IDENTIFIER_TAKEN',
  });

/** 403 gs1_prefix_not_granted unless a company prefix the operator granted the workspace covers the identifier's
 * primary key (GS1_REQUIRE_PREFIX, on the default scan host). */
export async function assertGs1PrefixGranted(em: EntityManager, auth: AuthContext, gs1Key: string): Promise<void> {
  const { ai, value } = gs1PrimaryOf(gs1Key);
  if (await hasGrantedPrefix(em, auth.organizationId, ai, value)) return;
  throw new ApiException(
    'gs1_prefix_not_granted',
    `No GS1 company prefix granted to this workspace covers /${ai}/${value}: ask the operator to grant yours, or use a verified custom domain (domain_id)`,
    { field: 'primary_key', gs1_code: 'GS1_PREFIX_NOT_GRANTED' },
  );
}

/** 409 for an identifier under a primary key another workspace holds on this host. */
export const gs1OwnedError = (gs1Key: string): ApiException => {
  const { ai, value } = gs1PrimaryOf(gs1Key);
  return new ApiException('gs1_identifier_taken', `The GS1 primary key /${ai}/${value} belongs to another workspace on this host: ${gs1Key} cannot be used here`, {
    field: 'primary_key',
    gs1_code: 'GS1_IDENTIFIER_TAKEN',
  });
};

/** True for the unique index that keeps one live or trashed code per GS1 identifier and host, and for the trigger that
 * keeps a primary key's subtree to one workspace per host (`qr_codes_gs1_owner`). */
export const isGs1KeyConflict = (err: unknown): boolean => {
  const constraint = (err as { constraint?: string }).constraint;
  return constraint === 'qr_codes_gs1_key_uq' || constraint === 'qr_codes_gs1_owner';
};
