import type { EntityManager } from '@mikro-orm/postgresql';
import { lockOrganization } from '../accounts/organizations.repository';
import { gs1Kind } from '../gs1/gs1-kind';

/**
 * The plan's dynamic-code capacity (and, apart, its dynamic GS1 capacity): live codes plus reservations (`qr_capacity_reservations`, owned here). A
 * reservation holds room for codes that are promised but not created yet (an accepted batch's pending dynamic items),
 * so a single creation or a restore cannot take it meanwhile. Every function runs on the caller's EntityManager, inside
 * its transaction.
 */

/** Locks the workspace row until the transaction ends (plan counts cannot race), then counts live dynamic codes and
 * live dynamic GS1 codes (each plan count apart) and the room of each reserved by holders other than `except`. */
export async function lockCapacity(
  em: EntityManager,
  organizationId: string,
  except?: string,
): Promise<{ live: number; reserved: number; gs1Live: number; gs1Reserved: number }> {
  await lockOrganization(em, organizationId);
  const [row] = await em.execute<{ live: string; reserved: string; gs1_live: string; gs1_reserved: string }[]>(
    `select (select count(*) from qr_codes where organization_id = ? and kind = 'dynamic' and status = 'live' and not (${gs1Kind.sqlCondition})) as live,
            (select count(*) from qr_codes where organization_id = ? and kind = 'dynamic' and status = 'live' and (${gs1Kind.sqlCondition})) as gs1_live,
            (select coalesce(sum(dynamic_count), 0) from qr_capacity_reservations where organization_id = ? and holder <> ?) as reserved,
            (select coalesce(sum(gs1_count), 0) from qr_capacity_reservations where organization_id = ? and holder <> ?) as gs1_reserved`,
    [organizationId, organizationId, organizationId, except ?? '', organizationId, except ?? ''],
  );
  return { live: Number(row.live), reserved: Number(row.reserved), gs1Live: Number(row.gs1_live), gs1Reserved: Number(row.gs1_reserved) };
}

/** Reserves room for `count` dynamic codes and `gs1Count` dynamic GS1 codes under `holder` (call after lockCapacity
 * confirmed the room). */
export async function reserveCapacity(em: EntityManager, organizationId: string, holder: string, count: number, gs1Count = 0): Promise<void> {
  if (count <= 0 && gs1Count <= 0) return;
  await em.execute('insert into qr_capacity_reservations (holder, organization_id, dynamic_count, gs1_count) values (?, ?, ?, ?)', [
    holder,
    organizationId,
    Math.max(0, count),
    Math.max(0, gs1Count),
  ]);
}

/** `count` reserved codes (`gs1Count` GS1 ones) are settled (created, or failed for good): their room is no longer held. */
export async function settleReservation(em: EntityManager, holder: string, count: number, gs1Count = 0): Promise<void> {
  if (count <= 0 && gs1Count <= 0) return;
  await em.execute('update qr_capacity_reservations set dynamic_count = greatest(0, dynamic_count - ?), gs1_count = greatest(0, gs1_count - ?) where holder = ?', [
    Math.max(0, count),
    Math.max(0, gs1Count),
    holder,
  ]);
}

/** Drops whatever `holder` still reserves (its work finished or failed). */
export async function releaseReservation(em: EntityManager, holder: string): Promise<void> {
  await em.execute('delete from qr_capacity_reservations where holder = ?', [holder]);
}
