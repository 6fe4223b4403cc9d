import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../../common/auth/api-key-format';
import type { ServedFile } from '../../files/file-delivery.service';
import type { FieldReader } from './fields';

export type StoredTarget = Record<string, unknown>;
export type QrKind = 'dynamic' | 'static';

/** A complete answer the scan host writes as is (status, headers including Content-Type and CSP, body). */
export interface HostedResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

/** What a scan answer may read of a code (the scan host's cached copy has at least this). */
export interface ScannedCode {
  id: string;
  shortCode: string;
  target: StoredTarget;
}

/**
 * How a scan of a live, active dynamic code answers, decided by its type. A type uses one or more of:
 * - `fixedLocation`: a 302 that does not depend on the visitor, computed once when the code enters the scan cache;
 * - `agentLocation`: a 302 chosen from the user agent (null: fall through to the page);
 * - `page`: a hosted page (pure: no I/O, every value escaped);
 * - `downloads`: files served on `/{short_code}<suffix>` (suffixes the scan host's path accepts: `.vcf`, `.ics`);
 * - `files`: stored bytes served on `/{short_code}/<name>` (`/file`), streamed with byte ranges; never a scan.
 * A type with none of them answers the 404 page.
 */
export interface TargetScan {
  fixedLocation?(target: StoredTarget): string | null;
  agentLocation?(target: StoredTarget, userAgent: string | undefined): string | null;
  page?(code: ScannedCode): HostedResponse | null;
  downloads?: Readonly<Record<string, (code: ScannedCode) => HostedResponse | null>>;
  files?: Readonly<Record<string, (code: ScannedCode) => ServedFile | null>>;
}

/** What `resolve` may read: the creating workspace and environment, through the request's EntityManager. */
export interface TargetContext {
  em: EntityManager;
  owner: { organizationId: string; environment: Environment };
}

/** Everything a target type decides: its request schema, validation at creation, PATCH rules, the static payload, the
 * summary, and how a scan answers it. One object per type, listed in registry.ts. */
export interface TargetHandler {
  readonly type: string;
  /** The OpenAPI schema of `target` for this type (a class with @ApiProperty decorators; several types may share one). */
  readonly schema: abstract new () => object;
  /** `type: static` is honoured (else 400 on `type`). */
  readonly staticCapable: boolean;
  /** Page-holding codes report editable: false and refuse `target` on PATCH (409). */
  readonly pageHolding: boolean;
  parse(r: FieldReader, kind: QrKind): StoredTarget;
  /** After parse, for types whose target names another object (a file): checks it exists in the workspace and
   * environment and returns the target to store (may add what the scan host needs of it). */
  resolve?(target: StoredTarget, ctx: TargetContext): Promise<StoredTarget>;
  /** Stored fields kept out of the API's `target` (a snapshot the scan host needs, not part of the request shape). */
  readonly internalFields?: readonly string[];
  /** PATCH of a live dynamic, non-page-holding code: omitted fields keep their value. May change the type (location →
   * url when given a plain destination). */
  patch(current: StoredTarget, r: FieldReader): { type: string; target: StoredTarget };
  /** What a static code encodes. */
  payload(target: StoredTarget): string;
  summary?(target: StoredTarget, counts: { leadCount: number }): Record<string, unknown>;
  /** How the scan host answers a scan of a dynamic code of this type. */
  readonly scan: TargetScan;
}
