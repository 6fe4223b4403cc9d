import { ForeignKeyConstraintViolationException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../common/auth/api-key-format';
import { lockOrganization } from '../accounts/organizations.repository';
import { recordAudit, type AuditInput } from '../audit/audit.repository';
import { SYSTEM_ACTOR } from '../../common/audit/audit-context';
import type { CursorCodec } from '../../common/http/cursor';
import type { ListEnvelope } from '../../common/http/list';
import { pageByCreatedAt } from '../../common/http/pagination';
import { Domain } from './domain.entity';
import type { ChallengeResult } from './domain-dns';

/** A domain row before and after a status statement (what its audit entry records). */
interface StatusChange {
  id: string;
  organization_id: string;
  hostname: string;
  old_status: string;
  status: string;
  old_error: string | null;
  last_error: string | null;
}

/** Audit entries (`domain.updated`) for the rows whose status changed (with the check's error as context); a check
 * that leaves the status as it was is bookkeeping, not a change. The actor is the scope's: the member or key that
 * asked for a check, else `system` (the worker). */
function statusChanges(rows: StatusChange[]): AuditInput[] {
  return rows
    .filter((r) => r.old_status !== r.status)
    .map((r) => {
      const changes: Record<string, [unknown, unknown]> = {};
      if (r.old_status !== r.status) changes.status = [r.old_status, r.status];
      if (r.old_error !== r.last_error) changes.last_error = [r.old_error, r.last_error];
      return { organizationId: r.organization_id, action: 'domain.updated', resource: { type: 'domain', id: r.id }, changes };
    });
}

const isPrimaryChange = (organizationId: string, id: string, was: boolean, now: boolean): AuditInput => ({
  organizationId,
  action: 'domain.updated',
  resource: { type: 'domain', id },
  changes: { is_primary: [was, now] },
});

export class DomainTakenError extends Error {}
export class DomainInUseError extends Error {}

/** Every statement on the `domains` table. Built per EntityManager (the request's, a transaction's, a job's fork). */
export class DomainsRepository {
  constructor(readonly em: EntityManager) {}

  /** One workspace's domain in one environment; null for anything else (foreign ids are simply not found). */
  find(organizationId: string, environment: Environment, id: string): Promise<Domain | null> {
    return this.em.findOne(Domain, { id, organizationId, environment });
  }

  /** A page of one workspace's domains in one environment, newest first. */
  page<R>(organizationId: string, environment: Environment, query: Record<string, unknown>, codec: CursorCodec, present: (d: Domain) => R): Promise<ListEnvelope<R>> {
    return pageByCreatedAt(this.em, Domain, { organizationId, environment }, query, codec, present);
  }

  /** Locks the workspace row until the transaction ends: serializes plan counts and primary changes of one workspace. */
  async lockWorkspace(organizationId: string): Promise<void> {
    await lockOrganization(this.em, organizationId);
  }

  /** The workspace's domains in both environments and every status: the plan's `custom_domains` is per workspace. */
  async count(organizationId: string): Promise<number> {
    const [row] = await this.em.execute<{ n: string }[]>('select count(*) as n from domains where organization_id = ?', [organizationId]);
    return Number(row.n);
  }

  /** Whether `hostname` is verified by a workspace, or claimed (any status) by this one: what a new claim must not
   * collide with. Pending and failed claims of other workspaces block nobody. */
  async claimBlocked(organizationId: string, hostname: string): Promise<boolean> {
    const rows = await this.em.execute<{ one: number }[]>(
      `select 1 as one from domains where hostname = ? and (status = 'verified' or organization_id = ?) limit 1`,
      [hostname, organizationId],
    );
    return rows.length > 0;
  }

  /** Inserts the claim; the workspace's own claim of the same host name (the unique index on workspace and host name)
   * raises DomainTakenError. */
  async insert(values: Pick<Domain, 'organizationId' | 'environment' | 'hostname' | 'verificationValue'>): Promise<Domain> {
    const domain = this.em.create(Domain, values);
    try {
      await this.em.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new DomainTakenError(values.hostname);
      throw err;
    }
    return domain;
  }

  /** Makes `domain` the only primary of its workspace and environment, or clears its flag. Call inside a transaction
   * after lockWorkspace (the partial unique index allows one primary). */
  async setPrimary(domain: Domain, primary: boolean): Promise<void> {
    const demoted = primary
      ? await this.em.execute<{ id: string }[]>(
          'update domains set is_primary = false, updated_at = now() where organization_id = ? and environment = ? and is_primary and id <> ? returning id',
          [domain.organizationId, domain.environment, domain.id],
        )
      : [];
    const [row] = await this.em.execute<{ was: boolean }[]>(
      'update domains d set is_primary = ?, updated_at = now() from domains old where d.id = ? and old.id = d.id returning old.is_primary as was',
      [primary, domain.id],
    );
    const changed = demoted.map((d) => isPrimaryChange(domain.organizationId, d.id, true, false));
    if (row && row.was !== primary) changed.push(isPrimaryChange(domain.organizationId, domain.id, row.was, primary));
    await recordAudit(this.em, ...changed);
    await this.em.refresh(domain);
  }

  /**
   * Records a DNS check. Found → verified, unless another workspace verified the host name first (the partial unique
   * index decides between two checks passing at once): then this claim becomes `failed` with `last_error = 'taken'`;
   * a claim that wins fails every other claim of the host name the same way. Not found (or a failed lookup) → the
   * reason in `last_error`, and `failed` when the claim is still pending and older than `failBefore`. Returns
   * 'verified' when this check verified the domain, 'taken' when another workspace holds the name, else null.
   */
  async recordCheck(id: string, result: ChallengeResult, failBefore: Date): Promise<'verified' | 'taken' | null> {
    // checked_at from this process's clock: the re-check loop compares it with its own start time.
    const now = new Date();
    if (result.found) {
      let rows: StatusChange[];
      try {
        rows = await this.em.execute<StatusChange[]>(
          `update domains d set status = 'verified', verified_at = ?, checked_at = ?, last_error = null, updated_at = ?
             from domains old where d.id = ? and d.status <> 'verified' and old.id = d.id
           returning d.id, d.organization_id, d.hostname, old.status as old_status, d.status, old.last_error as old_error, d.last_error`,
          [now, now, now, id],
        );
      } catch (err) {
        if (!(err instanceof UniqueConstraintViolationException)) throw err;
        const taken = await this.em.execute<StatusChange[]>(
          `update domains d set status = 'failed', last_error = 'taken', checked_at = ?, updated_at = ?
             from domains old where d.id = ? and d.status <> 'verified' and old.id = d.id
           returning d.id, d.organization_id, d.hostname, old.status as old_status, d.status, old.last_error as old_error, d.last_error`,
          [now, now, id],
        );
        await recordAudit(this.em, ...statusChanges(taken));
        return 'taken';
      }
      if (rows.length === 0) return null;
      const others = await this.em.execute<StatusChange[]>(
        `update domains d set status = 'failed', last_error = 'taken', updated_at = ?
           from domains old where d.hostname = ? and d.id <> ? and d.status <> 'verified' and old.id = d.id
         returning d.id, d.organization_id, d.hostname, old.status as old_status, d.status, old.last_error as old_error, d.last_error`,
        [now, rows[0].hostname, id],
      );
      // Claims of other workspaces lost the name to this one: their logs say `system`, never who verified it here.
      await recordAudit(this.em, ...statusChanges(rows), ...statusChanges(others).map((e) => ({ ...e, actor: SYSTEM_ACTOR })));
      return 'verified';
    }
    const checked = await this.em.execute<StatusChange[]>(
      `update domains d set checked_at = ?, last_error = case when d.last_error = 'taken' then d.last_error else ? end,
              status = case when d.status = 'pending' and d.created_at < ? then 'failed' else d.status end,
              updated_at = case when d.status = 'pending' and d.created_at < ? then ? else d.updated_at end
         from domains old where d.id = ? and d.status <> 'verified' and old.id = d.id
       returning d.id, d.organization_id, d.hostname, old.status as old_status, d.status, old.last_error as old_error, d.last_error`,
      [now, result.error, failBefore, failBefore, now, id],
    );
    await recordAudit(this.em, ...statusChanges(checked));
    return null;
  }

  /** Pending claims older than `failBefore` become `failed` (`last_error` kept, `expired` when none was recorded):
   * a claim does not stay pending past its 7 days even when no check of it ran. Returns how many. */
  async expirePending(failBefore: Date): Promise<number> {
    const rows = await this.em.execute<StatusChange[]>(
      `update domains d set status = 'failed', last_error = coalesce(d.last_error, 'expired'), updated_at = now()
         from domains old where d.status = 'pending' and d.created_at < ? and old.id = d.id
       returning d.id, d.organization_id, d.hostname, old.status as old_status, d.status, old.last_error as old_error, d.last_error`,
      [failBefore],
    );
    await recordAudit(this.em, ...statusChanges(rows));
    return rows.length;
  }

  /** Pending domains not checked since `checkedBefore`, least recently checked first (the worker's re-check). */
  pending(checkedBefore: Date, limit: number): Promise<Array<{ id: string; hostname: string; verification_value: string }>> {
    return this.em.execute(
      `select id, hostname, verification_value from domains
        where status = 'pending' and (checked_at is null or checked_at < ?)
        order by checked_at asc nulls first, id limit ?`,
      [checkedBefore, limit],
    );
  }

  /** Deletes the domain; DomainInUseError when a code still names it (the foreign key from qr_codes). */
  async delete(domain: Domain): Promise<void> {
    try {
      const gone = await this.em.execute<{ hostname: string }[]>('delete from domains where id = ? and organization_id = ? returning hostname', [domain.id, domain.organizationId]);
      if (gone[0]) {
        await recordAudit(this.em, { organizationId: domain.organizationId, action: 'domain.deleted', resource: { type: 'domain', id: domain.id }, changes: { hostname: [gone[0].hostname, null] } });
      }
    } catch (err) {
      if (err instanceof ForeignKeyConstraintViolationException) throw new DomainInUseError(domain.id);
      throw err;
    }
    this.em.getUnitOfWork().unsetIdentity(domain);
  }

  /** The domain a new code asks for by id: the workspace's, in the key's environment, with its status; null when
   * unknown or another workspace's (or environment's). */
  async forCode(organizationId: string, environment: Environment, id: string): Promise<{ id: string; hostname: string; status: string } | null> {
    const [row] = await this.em.execute<{ id: string; hostname: string; status: string }[]>(
      'select id, hostname, status from domains where id = ? and organization_id = ? and environment = ?',
      [id, organizationId, environment],
    );
    return row ?? null;
  }

  /** The workspace's primary domain in this environment, when one is set (only verified domains can be primary). */
  async primaryFor(organizationId: string, environment: Environment): Promise<{ id: string; hostname: string } | null> {
    const [row] = await this.em.execute<{ id: string; hostname: string }[]>(
      `select id, hostname from domains where organization_id = ? and environment = ? and is_primary and status = 'verified'`,
      [organizationId, environment],
    );
    return row ?? null;
  }

  /** Every verified custom domain: host name → id (the scan process's host map). */
  async verifiedHosts(): Promise<Array<{ id: string; hostname: string }>> {
    return this.em.execute(`select id, hostname from domains where status = 'verified'`);
  }

  /** Whether `hostname` is a verified custom domain (the scan host's TLS `ask` endpoint). */
  async isVerified(hostname: string): Promise<boolean> {
    const rows = await this.em.execute<{ one: number }[]>(`select 1 as one from domains where hostname = ? and status = 'verified'`, [hostname]);
    return rows.length > 0;
  }
}
