import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * GS1 ownership (docs/gs1.md "Ownership"): who holds a primary key's subtree on a host, and the company prefixes an
 * operator granted to workspaces (table `gs1_prefixes`). Every SQL statement over `gs1_prefixes` lives here.
 */

/** `/01/09506000134352/10/LOT42` → `{ ai: '01', value: '09506000134352' }` (the path is canonical: it starts with
 * the primary key). */
export function gs1PrimaryOf(gs1Key: string): { ai: string; value: string } {
  const [, ai = '', value = ''] = gs1Key.split('/');
  return { ai, value };
}

/** Primary keys whose value starts with a digit that is not part of the GS1 company prefix: the GTIN's indicator
 * digit (01, 8006), the SSCC's extension digit (00), the GRAI's leading zero (8003). */
const SKIP_FIRST_DIGIT = new Set(['01', '00', '8003', '8006']);

/** The digits a company prefix is compared with: the key's value after its indicator (or extension) digit, when the
 * key has one. A GTIN-13 `9503506933564` (stored as `09503506933564`) matches the prefix `950350`. */
export const companyPrefixDigits = (ai: string, value: string): string => (SKIP_FIRST_DIGIT.has(ai) ? value.slice(1) : value);

/** Digits only, 4 to 12 of them (a GS1 company prefix; a U.P.C. company prefix is written with its leading 0). */
export const isCompanyPrefix = (prefix: string): boolean => /^[0-9]{4,12}$/.test(prefix);

const hostKey = (domainId: string | null): string => domainId ?? '';

/** True when another workspace holds a live or trashed dynamic GS1 code under the same primary key on that host (the
 * API's check; the `qr_codes_gs1_owner` trigger repeats it under a lock when the row is written). */
export async function gs1PrimaryHeldByOther(em: EntityManager, domainId: string | null, gs1Key: string, organizationId: string): Promise<boolean> {
  const { ai, value } = gs1PrimaryOf(gs1Key);
  const [row] = await em.execute<{ held: boolean }[]>(
    `select exists (
       select 1 from qr_codes
        where coalesce(domain_id, '') = ? and split_part(gs1_key, '/', 2) = ? and split_part(gs1_key, '/', 3) = ?
          and gs1_key is not null and status in ('live','trashed') and organization_id <> ?) as held`,
    [hostKey(domainId), ai, value, organizationId],
  );
  return row.held;
}

export interface Gs1Prefix {
  prefix: string;
  organization_id: string;
  created_at: string;
}

const toPrefix = (r: { prefix: string; organization_id: string; created_at: Date | string }): Gs1Prefix => ({
  prefix: r.prefix,
  organization_id: r.organization_id,
  created_at: new Date(r.created_at).toISOString(),
});

/** True when one of the workspace's granted prefixes covers this primary key. */
export async function hasGrantedPrefix(em: EntityManager, organizationId: string, ai: string, value: string): Promise<boolean> {
  const digits = companyPrefixDigits(ai, value);
  if (!/^[0-9]+$/.test(digits)) return false;
  const [row] = await em.execute<{ ok: boolean }[]>(
    `select exists (select 1 from gs1_prefixes where organization_id = ? and left(?, length(prefix)) = prefix) as ok`,
    [organizationId, digits],
  );
  return row.ok;
}

/** Grants a prefix: `{ granted }`, or `{ heldBy }` when it (or a prefix overlapping it) belongs to another workspace.
 * Granting a prefix the workspace already holds returns it unchanged. */
export async function grantPrefix(em: EntityManager, organizationId: string, prefix: string): Promise<{ granted: Gs1Prefix } | { heldBy: Gs1Prefix }> {
  return em.transactional(async (tx) => {
    // One grant at a time: two overlapping prefixes granted concurrently to two workspaces would both pass the check.
    await tx.execute(`select pg_advisory_xact_lock(hashtextextended('gs1-prefixes', 0))`);
    const [clash] = await tx.execute<Gs1Prefix[]>(
      `select prefix, organization_id, created_at from gs1_prefixes
        where organization_id <> ? and (left(?, length(prefix)) = prefix or left(prefix, length(?)) = ?)
        order by prefix limit 1`,
      [organizationId, prefix, prefix, prefix],
    );
    if (clash) return { heldBy: toPrefix(clash) };
    await tx.execute('insert into gs1_prefixes (prefix, organization_id) values (?, ?) on conflict (prefix) do nothing', [prefix, organizationId]);
    const [row] = await tx.execute<Gs1Prefix[]>('select prefix, organization_id, created_at from gs1_prefixes where prefix = ?', [prefix]);
    return { granted: toPrefix(row) };
  });
}

/** Granted prefixes, of one workspace or of all, by prefix. */
export async function listPrefixes(em: EntityManager, organizationId?: string): Promise<Gs1Prefix[]> {
  const rows = await em.execute<Gs1Prefix[]>(
    `select prefix, organization_id, created_at from gs1_prefixes ${organizationId ? 'where organization_id = ?' : ''} order by prefix, organization_id`,
    organizationId ? [organizationId] : [],
  );
  return rows.map(toPrefix);
}

/** Withdraws a grant (of that workspace when named); the removed grant, or null when there was none. Codes created
 * under it stay: the prefix rule is checked when a code is created. */
export async function revokePrefix(em: EntityManager, prefix: string, organizationId?: string): Promise<Gs1Prefix | null> {
  const rows = await em.execute<Gs1Prefix[]>(
    `delete from gs1_prefixes where prefix = ? ${organizationId ? 'and organization_id = ?' : ''} returning prefix, organization_id, created_at`,
    organizationId ? [prefix, organizationId] : [prefix],
  );
  return rows[0] ? toPrefix(rows[0]) : null;
}

export interface Gs1Conflict {
  /** the custom domain's id, or null for the default scan host */
  domain_id: string | null;
  /** `/01/<gtin14>` */
  primary_key: string;
  /** every workspace holding live or trashed codes under the primary key, the earliest first */
  holders: { organization_id: string; first_created_at: string; codes: { id: string; gs1_key: string; status: string }[] }[];
}

/** Primary keys whose subtree more than one workspace holds on one host (codes from before the ownership rule). */
export async function findGs1Conflicts(em: EntityManager): Promise<Gs1Conflict[]> {
  const rows = await em.execute<{ domain_key: string; ai: string; value: string; organization_id: string; id: string; gs1_key: string; status: string; created_at: Date }[]>(
    `with held as (
       select coalesce(domain_id, '') as domain_key, split_part(gs1_key, '/', 2) as ai, split_part(gs1_key, '/', 3) as value,
              organization_id, id, gs1_key, status, created_at
         from qr_codes where gs1_key is not null and status in ('live','trashed')),
     clash as (
       select domain_key, ai, value from held group by domain_key, ai, value having count(distinct organization_id) > 1)
     select h.* from held h join clash c using (domain_key, ai, value)
      order by h.domain_key, h.ai, h.value, h.created_at, h.id`,
  );
  const out = new Map<string, Gs1Conflict>();
  for (const r of rows) {
    const key = `${r.domain_key} /${r.ai}/${r.value}`;
    let conflict = out.get(key);
    if (!conflict) out.set(key, (conflict = { domain_id: r.domain_key || null, primary_key: `/${r.ai}/${r.value}`, holders: [] }));
    let holder = conflict.holders.find((h) => h.organization_id === r.organization_id);
    if (!holder) conflict.holders.push((holder = { organization_id: r.organization_id, first_created_at: new Date(r.created_at).toISOString(), codes: [] }));
    holder.codes.push({ id: r.id, gs1_key: r.gs1_key, status: r.status });
  }
  return [...out.values()];
}
