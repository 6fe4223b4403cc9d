import type { EntityManager } from '@mikro-orm/postgresql';

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
