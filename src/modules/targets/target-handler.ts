import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiException } from '../../common/errors/api.exception';
import type { Environment } from '../../common/auth/api-key-format';
import type { ServedFile } from '../files/file-delivery.service';
import type { HostedResponse, ScannedCode } from '../hosted-pages/hosted-response';
import type { FieldReader } from './fields';
import type { Decider, VisitorFacts } from './smart-rules';

export type StoredTarget = Record<string, unknown>;
export type QrKind = 'dynamic' | 'static';

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
export interface TargetScan<T extends object = StoredTarget> {
  /** Paths the type answers itself instead of `/{short_code}` (GS1 Digital Link: `/01/{gtin}/…`). */
  ownPaths?: OwnPaths<T>;
  fixedLocation?(target: T): string | null;
  agentLocation?(target: T, userAgent: string | undefined): string | null;
  visitorLocation?(target: T): Decider;
  page?(code: ScannedCode<T>): HostedResponse | null;
  downloads?: Readonly<Record<string, (code: ScannedCode<T>) => HostedResponse | null>>;
  files?: Readonly<Record<string, (code: ScannedCode<T>) => ServedFile | null>>;
}

/** What `resolve` may read: the creating workspace and environment, through the request's EntityManager. */
export interface TargetContext {
  em: EntityManager;
  owner: { organizationId: string; environment: Environment };
  /** Where the target's fields are in the request (`target`, `items[2].target`, or '' for `PUT …/content`), for the
   * field an error names; `target` when not given. */
  path?: string;
  /** `PUT …/content`: the code's target as stored before this change (none on creation). */
  current?: StoredTarget;
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
export interface OwnPathCode<T extends object = StoredTarget> extends ScannedCode<T> {
  organizationId: string;
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
  /** the code an uncounted answer serves (a GS1 linkset): its link controls apply to the answer all the same */
  servesCodeId?: string;
}

/** The cache keys the answer needs and how to answer once they are looked up, or an answer that needs none. */
export type OwnPathPlan<T extends object = StoredTarget> = { keys: string[]; answer(codes: OwnPathCode<T>[]): OwnPathAnswer } | { answer: OwnPathAnswer };

export interface OwnPaths<T extends object = StoredTarget> {
  /** true when `url` (path and query) is one of the type's paths; cheap, called for every scan host request */
  claims(url: string): boolean;
  plan(req: OwnPathRequest): OwnPathPlan<T>;
}

/** What a stored code's type answers, whatever created it: a target type (TargetHandler, below) or another kind of code
 * with a creation path of its own (GS1 Digital Link, src/modules/gs1/gs1-kind.ts). `T` is the shape it stores in
 * `qr_codes.target`. */
export interface StoredCodeType<T extends object = StoredTarget> {
  readonly type: string;
  /** `type: static` is honoured (else 400 on `type`). */
  readonly staticCapable: boolean;
  /** Page-holding codes report editable: false and refuse `target` on PATCH (409). */
  readonly pageHolding: boolean;
  /** Stored fields kept out of the API's `target` (a snapshot the scan host needs, not part of the request shape). */
  readonly internalFields?: readonly string[];
  /** What a static code encodes. */
  payload(target: T): string;
  /** Codes of both kinds encode this URL instead of the short URL or payload (GS1: the Digital Link URI). */
  encodedUrl?(target: T, kind: QrKind, scanBaseUrl: string): string;
  /** The response's `target` fields when they differ from the stored ones (GS1); `editable` included. */
  present?(target: T, kind: QrKind, scanBaseUrl: string): Record<string, unknown>;
  summary?(target: T, counts: { leadCount: number }): Record<string, unknown>;
  /** How the scan host answers a scan of a dynamic code of this type. */
  readonly scan: TargetScan<T>;
}

/** Everything a target type decides: its request schema, validation at creation, PATCH rules, the static payload, the
 * summary, and how a scan answers it. One object per type (`defineHandler`), listed in registry.ts. */
export interface TargetHandler<T extends object = StoredTarget> extends StoredCodeType<T> {
  /** The OpenAPI schema of `target` for this type (a class with @ApiProperty decorators; several types may share one). */
  readonly schema: abstract new () => object;
  parse(r: FieldReader, kind: QrKind): T;
  /** After parse, for types whose target names another object (a file): checks it exists in the workspace and
   * environment and returns the target to store (may add what the scan host needs of it). */
  resolve?(target: T, ctx: TargetContext): Promise<T>;
  /** PATCH of a live dynamic, non-page-holding code: omitted fields keep their value. May change the type (location →
   * url when given a plain destination). */
  patch(current: T, r: FieldReader): { type: string; target: StoredTarget };
  /** What a lead post asks of the type: true when its hosted page is a form that takes posts. */
  readonly takesLeads?: boolean;
  /** The rule tester of a type whose rules decide each scan (smart URLs): what a scan with these facts would get. */
  testRules?(target: T, facts: VisitorFacts): Record<string, unknown>;
}

/** A handler typed by the shape it stores, as the registry holds it: the stored JSON reaches it from the database or
 * the scan cache, where only its own parse could have written it. */
export function defineHandler<T extends object>(handler: TargetHandler<T>): TargetHandler {
  return handler as unknown as TargetHandler;
}

/** A stored code type typed by its shape, as the registry holds it (see defineHandler). */
export function defineStoredType<T extends object>(type: StoredCodeType<T>): StoredCodeType {
  return type as unknown as StoredCodeType;
}

/** `patch()` of a page-holding type: its content changes through `PUT …/content`. (The qr-codes service refuses a PATCH
 * with `target` on such a code the same way before any handler is asked.) */
export function refuseTargetPatch(type: string): never {
  throw new ApiException('target_not_editable', `The target of a ${type} code cannot be changed through PATCH: replace its content with PUT /v1/qr-codes/{id}/content`);
}
