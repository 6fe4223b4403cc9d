import { domainToASCII } from 'node:url';
import { ApiException } from '../../common/errors/api.exception';
import { canonicalizeCreationParts, digitalLinkUri, type Gs1CanonicalIdentifier } from './creation-body';
import { Gs1Error } from './gs1.error';
import type { AiValue } from './identifier';
import { normalizeLinks, normalizeOverrides, type Gs1Link, type Gs1Override } from './resolver-data';
import { GS1_CODES_SQL, GS1_TYPE } from './gs1-codes';
import { GS1_PATCH_ONLY_FIELDS, type CreateGs1QrCodeDto, type Gs1PatchFields } from './gs1.dto';
import { checkHttpUrl } from '../targets/fields';
import { gs1ResolverPaths } from './resolver-paths';
import { isGs1StoredTarget, type Gs1StoredTarget } from './stored-target';
import type { QrKind, StoredCodeType } from '../targets/target-handler';

export interface Gs1Draft {
  kind: QrKind;
  target: Gs1StoredTarget;
  /** the identifier unique per host: set for dynamic codes only (static ones live on the customer's resolver) */
  gs1Key: string | null;
}

/** Runs a gs1 module function, turning its refusal into 400 gs1_invalid with `gs1_code` and `field`. */
export function gs1Checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Gs1Error) throw new ApiException('gs1_invalid', e.message, { gs1_code: e.gs1Code, field: e.field });
    throw e;
  }
}

/** A link target: an http(s) URL as it can go in a Location header and GS1's linkset schema. */
function href(value: string, field: string): string {
  if (value.length > 2048) throw ApiException.invalid(field, `${field} must be at most 2048 characters`);
  return new URL(checkHttpUrl(value, field)).href;
}

/** The customer's resolver host: lower case, IDNA to punycode, at least two labels, no IP literal, no port or path. */
function resolverHost(input: string): string {
  const refuse = (why: string): never => {
    throw ApiException.invalid('domain', `domain ${why}`);
  };
  if (/[/\\:@?#[\]%\s]/.test(input) || input.length > 253) refuse('must be a bare host name such as id.brand.example (no scheme, port or path)');
  const ascii = domainToASCII(input.toLowerCase().replace(/\.$/, ''));
  const labels = ascii.split('.');
  if (!ascii || labels.length < 2 || /^\d+$/.test(labels[labels.length - 1])) refuse('must be a domain name such as id.brand.example');
  if (!labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) refuse(`'${input}' is not a valid domain name`);
  return ascii;
}

function links(input: CreateGs1QrCodeDto['links'] = []): Gs1Link[] {
  if (input.length > 50) throw ApiException.invalid('links', 'links must have at most 50 items');
  const normalized = gs1Checked(() => normalizeLinks(input));
  return normalized.map((l, i) => ({ ...l, href: href(l.href, `links[${i}].href`) }));
}

function overrides(input: CreateGs1QrCodeDto['overrides'] = [], id: { primaryKey: AiValue; qualifiers: AiValue[] }): Gs1Override[] {
  if (input.length > 100) throw ApiException.invalid('overrides', 'overrides must have at most 100 items');
  const normalized = gs1Checked(() => normalizeOverrides(input, id));
  return normalized.map((o, i) => ({ ...o, href: href(o.href, `overrides[${i}].href`) }));
}

const DYNAMIC_ONLY = ['destination', 'links', 'overrides', 'domain_id'] as const;

/**
 * Validates a GS1 creation body (docs/gs1.md) into what the code stores: the identifier checked against GS1's Syntax
 * Dictionary (400 gs1_invalid with gs1_code and field), links and overrides (dynamic), the resolver host (static).
 * Plan, uniqueness and retirement are the caller's (they need the database).
 */
export function prepareGs1(body: CreateGs1QrCodeDto): Gs1Draft {
  const kind: QrKind = body.mode ?? 'dynamic';
  if (kind === 'static') {
    const extra = DYNAMIC_ONLY.find((f) => body[f] !== undefined && body[f] !== null);
    if (extra) throw ApiException.invalid(extra, `${extra} is for dynamic GS1 codes: a static code encodes only the identifier, resolved by your own resolver (domain)`);
    if (body.domain === undefined || body.domain === '') throw ApiException.invalid('domain', "domain (your resolver's host name) is required for a static GS1 code");
  } else {
    if (body.domain !== undefined) throw ApiException.invalid('domain', 'domain is for static GS1 codes; a dynamic code is resolved by this service (domain_id picks a custom domain)');
    if (body.destination === undefined || body.destination === '') throw ApiException.invalid('destination', 'destination (the default link) is required for a dynamic GS1 code');
  }
  for (const [ai, value] of Object.entries(body.attributes ?? {})) {
    if (typeof value !== 'string') throw ApiException.invalid(`attributes.${ai}`, `attributes.${ai} must be a string`);
  }
  const id: Gs1CanonicalIdentifier = gs1Checked(() => canonicalizeCreationParts(body));
  const target: Gs1StoredTarget = {
    mode: kind,
    primary_key: id.primaryKey,
    qualifiers: id.qualifiers,
    attributes: Object.fromEntries(id.attributes.map((a) => [a.ai, a.value])),
    path: id.path,
    query: id.query,
    default_link: kind === 'dynamic' ? href(body.destination!, 'destination') : null,
    links: kind === 'dynamic' ? links(body.links) : [],
    overrides: kind === 'dynamic' ? overrides(body.overrides, id) : [],
    domain: kind === 'static' ? resolverHost(body.domain!) : null,
  };
  return { kind, target, gs1Key: kind === 'dynamic' ? id.path : null };
}

/** Refusals of a PATCH naming GS1 fields: the identifier never changes (rule 6, `domain_id` included even at its
 * current value); the links of a static code live on the customer's resolver. */
export function assertGs1Patch(kind: QrKind, body: Gs1PatchFields & { domain_id?: unknown; target?: unknown }): void {
  const named = (['primary_key', 'qualifiers', 'attributes', 'domain', 'domain_id', 'mode', 'gs1_key'] as const).find((f) => body[f] !== undefined);
  if (named) {
    throw new ApiException('gs1_identifier_immutable', `The identifier of a GS1 code cannot change ('${named}'); create a new code instead`, {
      field: named,
      gs1_code: 'GS1_IDENTIFIER_IMMUTABLE',
    });
  }
  if (body.target !== undefined) {
    throw new ApiException('target_not_editable', 'A GS1 code has no `target` to change: send destination, links or overrides at the top level', { field: 'target' });
  }
  const linkField = (['destination', 'links', 'overrides'] as const).find((f) => body[f] !== undefined);
  if (kind === 'static' && linkField) {
    throw new ApiException('code_not_editable', `Static GS1 codes cannot change '${linkField}': their links live on your own resolver`, { field: linkField });
  }
}

/** The stored target after a PATCH of `destination`, `links`, `overrides` (omitted ones keep their value). */
export function patchGs1(t: Gs1StoredTarget, body: Gs1PatchFields): Gs1StoredTarget {
  const next: Gs1StoredTarget = { ...t };
  if (body.destination !== undefined) next.default_link = href(body.destination, 'destination');
  if (body.links !== undefined) next.links = links(body.links);
  if (body.overrides !== undefined) next.overrides = overrides(body.overrides, { primaryKey: t.primary_key, qualifiers: t.qualifiers });
  return next;
}

/** The Digital Link URI a GS1 code encodes. */
export function gs1Uri(t: Gs1StoredTarget, kind: QrKind, scanBaseUrl: string): string {
  const origin = kind === 'static' ? `https://${t.domain}` : new URL(scanBaseUrl).origin;
  return digitalLinkUri(origin, { pathAndQuery: t.query ? `${t.path}?${t.query}` : t.path });
}

function present(t: Gs1StoredTarget, kind: QrKind, scanBaseUrl: string): Record<string, unknown> {
  const prefix = `${t.path.split('/').slice(0, 3).join('/')}/`;
  return {
    mode: kind,
    destination: gs1Uri(t, kind, scanBaseUrl),
    primary_key: t.primary_key,
    qualifiers: t.qualifiers,
    attributes: t.attributes,
    default_link: t.default_link,
    links: t.links,
    overrides: t.overrides.map((o) => ({ path: o.path.startsWith(prefix) ? o.path.slice(prefix.length) : o.path, href: o.href })),
    domain: t.domain,
    editable: false,
  };
}

/**
 * GS1 Digital Link (docs/gs1.md), a kind of code of its own: created through a body of its own (`type: "gs1"`, no
 * `target`), updated through top-level fields (`destination`, `links`, `overrides`; the identifier never changes),
 * counted against the plan's `gs1_limit`, encoding its Digital Link URI, and answering on its own paths
 * (`/01/{gtin}/…`, `/.well-known/gs1resolver`) on the scan host. The rest of the code asks it through this object and
 * never names its type.
 */
export interface Gs1Kind extends StoredCodeType<Gs1StoredTarget> {
  /** true for a creation body (or batch item) of this kind */
  ownsBody(body: unknown): body is CreateGs1QrCodeDto;
  /** true for a stored code of this kind */
  owns(code: { type: string }): boolean;
  /** the item makes a static code (`mode: "static"`) */
  isStaticBody(body: Record<string, unknown>): boolean;
  /** a SQL condition on `qr_codes` (unaliased columns) that holds for codes of this kind */
  readonly sqlCondition: string;
  /** the plan count its live dynamic codes take (the plan's `gs1_limit`), apart from the QR codes' `dynamic` count */
  readonly planCount: 'gs1';
  /** validates a creation body (400 gs1_invalid / invalid_request); plan, uniqueness and retirement are the caller's */
  draft(body: CreateGs1QrCodeDto): Gs1Draft;
  /** PATCH fields only codes of this kind take (others answer 400 naming the field) */
  readonly patchOnlyFields: readonly string[];
  /** refusals of a PATCH of a code of this kind (422 gs1_identifier_immutable, 409 target_not_editable, …) */
  assertPatch(kind: QrKind, body: Gs1PatchFields & { domain_id?: unknown; target?: unknown }): void;
  /** the stored target after a PATCH, or null when the body changes none of its fields */
  patch(current: Record<string, unknown>, body: Gs1PatchFields): Record<string, unknown> | null;
  /** 400 on `target.type` when a standard body names this kind as its target type */
  refuseAsTarget(type: unknown): void;
}

export const gs1Kind: Gs1Kind = {
  type: GS1_TYPE,
  staticCapable: true,
  pageHolding: false,
  ownsBody: (body): body is CreateGs1QrCodeDto => typeof body === 'object' && body !== null && (body as { type?: unknown }).type === GS1_TYPE,
  owns: (code) => code.type === GS1_TYPE,
  isStaticBody: (body) => body.type === GS1_TYPE && body.mode === 'static',
  sqlCondition: GS1_CODES_SQL,
  planCount: 'gs1',
  draft: prepareGs1,
  patchOnlyFields: GS1_PATCH_ONLY_FIELDS,
  assertPatch: assertGs1Patch,
  patch: (current, body) => {
    if ((body.destination ?? body.links ?? body.overrides) === undefined) return null;
    // qr_codes.target of a GS1 code holds what prepareGs1 stored; anything else is a corrupted row, not bad input
    if (!isGs1StoredTarget(current)) throw new Error('qr_codes.target of a GS1 code lacks the identifier, links or overrides');
    return { ...patchGs1(current, body) };
  },
  payload: (target) => gs1Uri(target, 'static', ''),
  encodedUrl: gs1Uri,
  present,
  refuseAsTarget: (type) => {
    if (type !== GS1_TYPE) return;
    throw ApiException.invalid('target.type', 'GS1 Digital Link codes are created with a body of their own: {"type": "gs1", "primary_key": {…}, …} (no target)');
  },
  scan: { ownPaths: gs1ResolverPaths },
};
