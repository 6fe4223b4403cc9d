import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../../common/auth/api-key-format';
import type { ServedFile } from '../../files/file-delivery.service';
import type { FieldReader } from './fields';
import type { Decider } from './smart-rules';

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
 * - `visitorLocation`: a 302 chosen per scan from the visitor's facts (smart-URL rules), compiled once per cache fill;
 * - `page`: a hosted page (pure: no I/O, every value escaped);
 * - `downloads`: files served on `/{short_code}<suffix>` (suffixes the scan host's path accepts: `.vcf`, `.ics`);
 * - `files`: stored bytes served on `/{short_code}/<name>` (`/file`), streamed with byte ranges; never a scan.
 * A type with none of them answers the 404 page.
 */
export interface TargetScan {
  /** Paths the type answers itself instead of `/{short_code}` (GS1 Digital Link: `/01/{gtin}/…`). */
  ownPaths?: OwnPaths;
  fixedLocation?(target: StoredTarget): string | null;
  agentLocation?(target: StoredTarget, userAgent: string | undefined): string | null;
  visitorLocation?(target: StoredTarget): Decider;
  page?(code: ScannedCode): HostedResponse | null;
  downloads?: Readonly<Record<string, (code: ScannedCode) => HostedResponse | null>>;
  files?: Readonly<Record<string, (code: ScannedCode) => ServedFile | null>>;
}

/** What `resolve` may read: the creating workspace and environment, through the request's EntityManager. */
export interface TargetContext {
  em: EntityManager;
  owner: { organizationId: string; environment: Environment };
}

/** A request on a path a type owns (TargetScan.ownPaths), any method. */
export interface OwnPathRequest {
  method: string;
  /** the request target as received: path and query */
  url: string;
  accept?: string;
  acceptLanguage?: string;
  /** `https://scan.example.com`: the origin the request was made to */
  origin: string;
}

/** A code as an own-path answer reads it (the scan host's cached copy has at least this). */
export interface OwnPathCode extends ScannedCode {
  name: string;
  status: string;
  isActive: boolean;
}

/** What the scan host writes: `statusPage` asks for its own 400/404/410 page with these headers added. */
export interface OwnPathAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
  statusPage?: boolean;
  /** a GET answered for this code is a scan (bots left out by the scan host) */
  countCodeId?: string;
}

/** The cache keys the answer needs and how to answer once they are looked up, or an answer that needs none. */
export type OwnPathPlan = { keys: string[]; answer(codes: OwnPathCode[]): OwnPathAnswer } | { answer: OwnPathAnswer };

export interface OwnPaths {
  /** true when `url` (path and query) is one of the type's paths; cheap, called for every scan host request */
  claims(url: string): boolean;
  plan(req: OwnPathRequest): OwnPathPlan;
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
  /** Created through a request body of its own (GS1: `type: "gs1"` at the top level), never as `target.type`. */
  readonly ownBody?: boolean;
  /** Codes of both kinds encode this URL instead of the short URL or payload (GS1: the Digital Link URI). */
  encodedUrl?(target: StoredTarget, kind: QrKind, scanBaseUrl: string): string;
  /** The response's `target` fields when they differ from the stored ones (GS1); `editable` included. */
  present?(target: StoredTarget, kind: QrKind, scanBaseUrl: string): Record<string, unknown>;
  summary?(target: StoredTarget, counts: { leadCount: number }): Record<string, unknown>;
  /** How the scan host answers a scan of a dynamic code of this type. */
  readonly scan: TargetScan;
}
