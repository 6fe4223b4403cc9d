import type { EntityManager } from '@mikro-orm/postgresql';
import { lockOrganization } from '../accounts/organizations.repository';
import { gs1Kind } from '../gs1/gs1-kind';

/**
 * The plan's dynamic-code capacity: live dynamic codes plus reservations (`qr_capacity_reservations`, owned here). A
 * reservation holds room for codes that are promised but not created yet (an accepted batch's pending dynamic items),
 * so a single creation or a restore cannot take it meanwhile. Every function runs on the caller's EntityManager, inside
 * its transaction.
 */

/** Locks the workspace row until the transaction ends (plan counts cannot race), then counts live dynamic codes (GS1
 * codes have a limit of their own and are not counted here) and the room reserved by holders other than `except`. */
export async function lockCapacity(em: EntityManager, organizationId: string, except?: string): Promise<{ live: number; reserved: number }> {
  await lockOrganization(em, organizationId);
  const [row] = await em.execute<{ live: string; reserved: string }[]>(
    `select (select count(*) from qr_codes where organization_id = ? and kind = 'dynamic' and status = 'live' and not (${gs1Kind.sqlCondition})) as live,
            (select coalesce(sum(dynamic_count), 0) from qr_capacity_reservations where organization_id = ? and holder <> ?) as reserved`,
    [organizationId, organizationId, except ?? ''],
  );
  return { live: Number(row.live), reserved: Number(row.reserved) };
}

/** Reserves room for `count` dynamic codes under `holder` (call after lockCapacity confirmed the room). */
export async function reserveCapacity(em: EntityManager, organizationId: string, holder: string, count: number): Promise<void> {
  if (count <= 0) return;
  await em.execute('insert into qr_capacity_reservations (holder, organization_id, dynamic_count) values (?, ?, ?)', [holder, organizationId, count]);
}

/** `count` reserved codes are settled (created, or failed for good): their room is no longer held. */
export async function settleReservation(em: EntityManager, holder: string, count: number): Promise<void> {
  if (count <= 0) return;
  await em.execute('update qr_capacity_reservations set dynamic_count = greatest(0, dynamic_count - ?) where holder = ?', [count, holder]);
}

/** Drops whatever `holder` still reserves (its work finished or failed). */
export async function releaseReservation(em: EntityManager, holder: string): Promise<void> {
  await em.execute('delete from qr_capacity_reservations where holder = ?', [holder]);
}
