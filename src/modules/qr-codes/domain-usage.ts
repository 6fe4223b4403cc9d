import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Whether any code row names this custom domain: live, trashed or paused (a paused code comes back on restore).
 * The domains module asks this before removing a domain; the foreign key qr_codes.domain_id backs it up.
 */
export async function domainHasCodes(em: EntityManager, domainId: string): Promise<boolean> {
  const rows = await em.execute<{ one: number }[]>('select 1 as one from qr_codes where domain_id = ? limit 1', [domainId]);
  return rows.length > 0;
}
