import { ApiException } from '../../common/errors/api.exception';
import { emailHandler, smsHandler, textHandler, wifiHandler } from './content.targets';
import { eventHandler } from './event.target';
import { audioHandler, fileHandler, videoHandler } from './file.targets';
import type { FieldReader } from './fields';
import { linkHandlers, telegramHandler, urlHandler, whatsappHandler } from './link.targets';
import { locationHandler } from './location.target';
import { appstoresHandler, formHandler, linkpageHandler, menupageHandler, reviewHandler } from './page.targets';
import { smarturlHandler } from './smarturl.target';
import type { Decider, VisitorFacts } from './smart-rules';
import type { HostedResponse, ScannedCode } from '../hosted-pages/hosted-response';
import type { QrKind, StoredTarget, TargetContext, TargetHandler } from './target-handler';
import type { ServedFile } from '../files/file-delivery.service';
import { vcardHandler } from './vcard.target';

/** Every target type. Adding one: a handler file beside this one and a line here (see docs/architecture.md). */
const HANDLERS: TargetHandler[] = [
  urlHandler,
  ...linkHandlers,
  textHandler,
  emailHandler,
  smsHandler,
  wifiHandler,
  eventHandler,
  vcardHandler,
  locationHandler,
  whatsappHandler,
  telegramHandler,
  appstoresHandler,
  reviewHandler,
  linkpageHandler,
  formHandler,
  menupageHandler,
  fileHandler,
  audioHandler,
  videoHandler,
  smarturlHandler,
];

const BY_TYPE = new Map(HANDLERS.map((h) => [h.type, h]));

export const TARGET_TYPES = HANDLERS.map((h) => h.type);
export const STATIC_CAPABLE_TYPES = HANDLERS.filter((h) => h.staticCapable).map((h) => h.type);
export const LINK_FAMILY = new Set(['url', ...linkHandlers.map((h) => h.type)]);
/** The target a dynamic preview without one draws: a URL code (its image encodes the placeholder short URL anyway). */
export const PREVIEW_TARGET: Readonly<Record<string, unknown>> = { type: 'url', destination: 'https://example.com/' };
/** Path suffixes some type serves a download on (`/{short_code}.vcf`): the scan host's short-code path accepts these. */
export const DOWNLOAD_SUFFIXES: readonly string[] = [...new Set(HANDLERS.flatMap((h) => Object.keys(h.scan.downloads ?? {})))];

export function handlerFor(type: unknown, field = 'target.type'): TargetHandler {
  if (type === undefined || type === null || type === '') throw ApiException.invalid(field, `${field} is required`);
  const h = typeof type === 'string' ? BY_TYPE.get(type) : undefined;
  if (!h) throw ApiException.invalid(field, `${field} must be one of ${TARGET_TYPES.join(', ')}`);
  return h;
}

/** The target to store for a creation body's `target`: the handler's parse, then its resolve (when it names another
 * object, such as an uploaded file). */
export async function parseTarget(handler: TargetHandler, r: FieldReader, kind: QrKind, ctx: TargetContext): Promise<StoredTarget> {
  const target = handler.parse(r, kind);
  return handler.resolve ? handler.resolve(target, { ...ctx, path: r.path }) : target;
}

/** The handler of a stored code (its type is already valid), or undefined when no target type has that name. */
export function findHandler(type: string): TargetHandler | undefined {
  return BY_TYPE.get(type);
}

/** The types whose codes take lead posts (their hosted page is a form). */
export const LEAD_TYPES: readonly string[] = HANDLERS.filter((h) => h.takesLeads).map((h) => h.type);
export const takesLeads = (type: string): boolean => LEAD_TYPES.includes(type);

/** target.type when a batch item leaves it out: inferred from the fields it carries (the types whose fields say it). */
export function inferTargetType(target: Record<string, unknown>): string | undefined {
  if (typeof target.type === 'string') return target.type;
  if ('ssid' in target) return 'wifi';
  if ('title' in target && 'start' in target) return 'event';
  if ('email' in target) return 'email';
  if ('phone' in target) return 'sms';
  if ('text' in target) return 'text';
  if ('destination' in target) return 'url';
  return undefined;
}

/** The handler of a stored code (its type is already valid). */
export function storedHandler(type: string): TargetHandler {
  const h = BY_TYPE.get(type);
  if (!h) throw new Error(`no target handler for stored type ${type}`);
  return h;
}

/** The handler of a type read from a cache (possibly written by another version), or undefined. */
function scanHandler(type: string): TargetHandler | undefined {
  return BY_TYPE.get(type);
}

/** The visitor-independent redirect of a dynamic code of `type`, or null (page-served types, unusable targets). */
export function fixedLocation(type: string, target: Record<string, unknown>): string | null {
  return scanHandler(type)?.scan.fixedLocation?.(target) ?? null;
}

/** The redirect chosen from the user agent (app store links), or null: then the page answers. */
export function agentLocation(type: string, target: Record<string, unknown>, userAgent: string | undefined): string | null {
  return scanHandler(type)?.scan.agentLocation?.(target, userAgent) ?? null;
}

/** The rule tester of codes of `type` (smart URLs: what a scan with these facts would get), or null when rules do not
 * decide their scans. */
export function ruleTester(type: string): ((target: Record<string, unknown>, facts: VisitorFacts) => Record<string, unknown>) | null {
  const handler = scanHandler(type);
  return handler?.testRules ? (target, facts) => handler.testRules!(target, facts) : null;
}

/** The per-visitor redirect of a code whose rules decide each scan (smart URLs), compiled once per cache fill, or null. */
export function visitorDecider(type: string, target: Record<string, unknown>): Decider | null {
  return scanHandler(type)?.scan.visitorLocation?.(target) ?? null;
}

/**
 * The hosted page (suffix '') or a download (suffix '.vcf', '.ics') of a live, active code, or null when its type has
 * none for that suffix (the caller answers 404).
 */
export function hostedPage(type: string, code: ScannedCode, suffix: string): HostedResponse | null {
  const scan = scanHandler(type)?.scan;
  if (!scan) return null;
  if (suffix === '') return scan.page?.(code) ?? null;
  return scan.downloads?.[suffix]?.(code) ?? null;
}

/** The stored file a live, active code serves on `/{short_code}/<name>`, or null (the caller answers 404). */
export function servedFile(type: string, code: ScannedCode, name: string): ServedFile | null {
  const files = scanHandler(type)?.scan.files;
  return files && Object.hasOwn(files, name) ? files[name](code) : null;
}

/** One schema per distinct request shape (the link types share url's), for the OpenAPI document. */
export const TARGET_SCHEMAS = [...new Set(HANDLERS.map((h) => h.schema))];

/** The schemas of the page-holding types (their creation `target`; `PUT /qr-codes/{id}/content` takes their fields). */
export const PAGE_TARGET_SCHEMAS = [...new Set(HANDLERS.filter((h) => h.pageHolding).map((h) => h.schema))];

/** `type` → schema, for the discriminator of the `target` union. */
export const TARGET_SCHEMA_BY_TYPE: ReadonlyMap<string, TargetHandler['schema']> = new Map(HANDLERS.map((h) => [h.type, h.schema]));
