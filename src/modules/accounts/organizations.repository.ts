import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlanId } from '../../common/auth/plan';
import { Organization } from './organization.entity';

/** What other modules may do with the organizations table, each on the caller's EntityManager (often inside its
 * transaction). */

/** Locks the workspace row until the caller's transaction ends, so plan counts cannot race. */
export async function lockOrganization(em: EntityManager, organizationId: string): Promise<void> {
  await em.execute('select id from organizations where id = ? for update', [organizationId]);
}

/** The owner's address and the workspace name, for operational e-mails; null when the workspace is gone. */
export async function organizationContact(em: EntityManager, organizationId: string): Promise<{ ownerEmail: string; name: string } | null> {
  const [row] = await em.execute<{ owner_email: string; name: string }[]>('select owner_email, name from organizations where id = ?', [organizationId]);
  return row ? { ownerEmail: row.owner_email, name: row.name } : null;
}

/** The workspace, or null when it does not exist. */
export function findOrganization(em: EntityManager, id: string): Promise<Organization | null> {
  return em.findOne(Organization, { id });
}

/** Moves the workspace to another plan (the operator CLI's org:plan). */
export async function setPlan(em: EntityManager, organizationId: string, plan: PlanId): Promise<void> {
  await em.execute('update organizations set plan = ?, updated_at = now() where id = ?', [plan, organizationId]);
}
