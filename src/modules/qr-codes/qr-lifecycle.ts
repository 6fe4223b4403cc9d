import type { EntityManager } from '@mikro-orm/postgresql';
import { lockOrganization } from '../accounts/organizations.repository';
import { recordAudit } from '../audit/audit.repository';
import { GS1_CODES_SQL } from '../gs1/gs1-codes';
import { queueUnusedKeys } from './image-references.repository';

/** Plan downgrades, Trash emptying and Trash retention: operations outside the API, shared by the CLI and the worker.
 * Each takes the EntityManager it runs on (a fork). */

export interface PausedCode {
  id: string;
  short_code: string;
  domain_id: string | null;
  gs1_key: string | null;
}

/** Pauses the newest live dynamic codes above `limit` and the newest live dynamic GS1 codes above `gs1Limit` (each
 * count apart, as the plan counts them; state "paused": deleted_at set, not in the Trash). */
export async function pauseAboveLimit(em: EntityManager, organizationId: string, limit: number, gs1Limit = Infinity): Promise<PausedCode[]> {
  return em.transactional(async (tx) => {
    await lockOrganization(tx, organizationId);
    const paused: PausedCode[] = [];
    for (const [gs1, keep] of [[false, limit], [true, gs1Limit]] as const) {
      if (keep === Infinity) continue;
      const rows = await tx.execute<PausedCode[]>(
        `update qr_codes set status = 'paused', deleted_at = now(), updated_at = now()
          where id in (
            -- keep the oldest codes up to the limit; everything newer is paused
            select id from qr_codes where organization_id = ? and kind = 'dynamic' and status = 'live' and (${GS1_CODES_SQL}) = ?
            order by created_at asc, id asc
            offset ?
          )
          returning id, short_code, domain_id, gs1_key`,
        [organizationId, gs1, keep],
      );
      paused.push(...rows);
    }
    return paused;
  });
}

export interface PurgedCode {
  id: string;
  image_key: string | null;
  logo_key: string | null;
}

/** Permanently deletes trashed codes (never paused ones): one workspace (optionally one environment, or one code), or
 * every workspace's codes trashed before `olderThan`. A dynamic GS1 code's identifier is retired on its host for `gs1RetirementDays` (GS1_RETIREMENT_DAYS,
 * default 365) in the same statement.
 * Returns the storage keys no longer referenced, already queued in storage_deletes: the caller deletes them
 * (sweepStorageDeletes), or the worker's sweep does. */
export async function purgeTrash(
  em: EntityManager,
  opts: { organizationId?: string; environment?: string; id?: string; olderThan?: Date; batch?: number; gs1RetirementDays?: number },
): Promise<{ deleted: number; orphanKeys: string[] }> {
  let deleted = 0;
  const orphanKeys = new Set<string>();
  for (;;) {
    const conditions = [`status = 'trashed'`];
    const params: unknown[] = [];
    if (opts.organizationId) {
      conditions.push('organization_id = ?');
      params.push(opts.organizationId);
    }
    if (opts.environment) {
      conditions.push('environment = ?');
      params.push(opts.environment);
    }
    if (opts.id) {
      conditions.push('id = ?');
      params.push(opts.id);
    }
    if (opts.olderThan) {
      conditions.push('deleted_at < ?');
      params.push(opts.olderThan);
    }
    // Each round deletes and records its deletions in one transaction (the audit log names every purged code; the
    // actor is the scope's: `system` for the worker's retention, `cli` for the operator's command).
    // The round's codes are locked in id order before any is deleted: scan ingestion locks a batch's codes in id order
    // before it adds to the workspace rollups, and deleting a code takes its rollups back out of them (a trigger), so
    // both queue on the codes' rows instead of deadlocking on the workspace's rollup rows.
    const rows = await em.transactional(async (tx) => {
      const locked = await tx.execute<Array<{ id: string }>>(
        `select id from qr_codes where ${conditions.join(' and ')} order by id limit ? for update`,
        [...params, opts.batch ?? 500],
      );
      if (locked.length === 0) return [];
      const purged = await tx.execute<Array<PurgedCode & { organization_id: string; short_code: string }>>(
        `with d as (
           delete from qr_codes where id in (?) and status = 'trashed'
           returning id, organization_id, short_code, image_key, logo_key, domain_id, domain_hostname, gs1_key
         ), retired as (
           insert into gs1_retired_identifiers (domain_key, gs1_key, retired_until)
           select distinct lower(coalesce(domain_hostname, '')), gs1_key, now() + make_interval(days => ?) from d where gs1_key is not null
           on conflict (domain_key, gs1_key) do update set retired_until = greatest(gs1_retired_identifiers.retired_until, excluded.retired_until)
         )
         select id, organization_id, short_code, image_key, logo_key from d`,
        [locked.map((r) => r.id), opts.gs1RetirementDays ?? 365],
      );
      await recordAudit(
        tx,
        ...purged.map((r) => ({
          organizationId: r.organization_id,
          action: 'qr_code.purged',
          resource: { type: 'qr_code', id: r.id },
          changes: { status: ['trashed', null] as [unknown, unknown], short_code: [r.short_code, null] as [unknown, unknown] },
        })),
      );
      return purged;
    });
    deleted += rows.length;
    for (const r of rows) {
      if (r.image_key) orphanKeys.add(r.image_key);
      if (r.logo_key) orphanKeys.add(r.logo_key);
    }
    if (rows.length === 0 || rows.length < (opts.batch ?? 500)) break;
  }
  // Keys no remaining code uses are queued for deletion (storage_deletes) before this returns: a crash before the
  // caller deletes them leaves them to the worker's sweep.
  return { deleted, orphanKeys: await queueUnusedKeys(em, [...orphanKeys]) };
}
