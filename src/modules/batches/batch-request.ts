import { SecretBox } from '../../common/crypto/secret-box';
import { ApiException } from '../../common/errors/api.exception';
import { parseCreateBody } from '../qr-codes/dto/create-body';
import { gs1Kind } from '../gs1/gs1-kind';
import type { CreateGs1QrCodeDto } from '../gs1/gs1.dto';
import { inferTargetType } from '../targets/registry';
import type { CreateQrCodeDto } from '../qr-codes/dto/qr-code.dto';

/** A batch item as sent, and how it becomes a POST /v1/qr-codes body. Pure: no I/O. */

/** How an item counts against the plan: dynamic items reserve dynamic capacity when the batch is accepted; a GS1 item
 * (`own`: a kind of code with a plan count of its own) and static items do not. */
export function itemKind(item: Record<string, unknown>): 'dynamic' | 'static' | 'own' | 'other' {
  if (gs1Kind.ownsBody(item)) return 'own';
  const t = item.type ?? 'dynamic';
  return t === 'dynamic' || t === 'static' ? t : 'other';
}

/** Whether the item makes a static code (`type: "static"`, or a GS1 item in `mode: "static"`): its code id is `sqr_…`. */
export const isStaticItem = (item: Record<string, unknown>): boolean => item.type === 'static' || gs1Kind.isStaticBody(item);

/** A GS1 item in `mode: "dynamic"` (the default): it takes room under the plan's GS1 limit. */
export const isDynamicGs1Item = (item: Record<string, unknown>): boolean => gs1Kind.ownsBody(item) && !gs1Kind.isStaticBody(item);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The item's target type as the batch reports it before the item is created. */
export function itemType(item: Record<string, unknown>): string | null {
  if (gs1Kind.ownsBody(item)) return gs1Kind.type;
  return isObject(item.target) ? (inferTargetType(item.target) ?? null) : null;
}

/** The item as a creation body, validated as POST /v1/qr-codes validates its body (400 → the item's error). The
 * batch's design (and template) applies to every item: an item's own `design` and `template_id` are ignored. */
export async function itemBody(item: Record<string, unknown>): Promise<CreateQrCodeDto | CreateGs1QrCodeDto> {
  const request: Record<string, unknown> = { ...item };
  delete request.design;
  delete request.template_id;
  if (isObject(request.target)) request.target = { ...request.target, type: inferTargetType(request.target) };
  // A standard or a GS1 item (`type: "gs1"`), checked as POST /v1/qr-codes checks its body.
  return parseCreateBody(request);
}

/** What an item's `error` says: the API error's message, naming its field. */
export function itemError(err: unknown): { error: string; gs1_code: string | null } | null {
  if (!(err instanceof ApiException)) return null;
  const field = err.extras.field;
  return { error: field && !err.message.includes(field) ? `${field}: ${err.message}` : err.message, gs1_code: err.extras.gs1_code ?? null };
}

/** The key under which an item's link-control password waits, sealed, in `batch_items.request`. */
const SEALED_PASSWORD = 'sealed';

/** `batch_items` never holds a plain password (link controls: write-only, argon2id at rest). Hashing 1,000 of them
 * would hold the POST for half a minute, so a string `password` is kept sealed (AES-256-GCM under APP_SECRET, bound to
 * its item) until the worker creates the item, which hashes it as POST /v1/qr-codes does; recordOutcomes then removes
 * it from the row. Anything else (null, a number) stays as sent, for the item's own 400. */
export function sealItemPassword(item: Record<string, unknown>, box: SecretBox, aad: string): Record<string, unknown> {
  if (typeof item.password !== 'string') return item;
  return { ...item, password: { [SEALED_PASSWORD]: box.seal(item.password, aad) } };
}

/** The item as sent: its sealed password opened (one that does not open stays an object, refused as any non-string). */
export function openItemPassword(request: Record<string, unknown>, box: SecretBox, aad: string): Record<string, unknown> {
  const p = request.password;
  if (!isObject(p) || Object.keys(p).length !== 1 || typeof p[SEALED_PASSWORD] !== 'string') return request;
  try {
    return { ...request, password: box.open(p[SEALED_PASSWORD], aad) };
  } catch {
    return request;
  }
}

export const itemPasswordAad = (batchId: string, idx: number): string => `${batchId}:${idx}`;
export const itemPasswordBox = (appSecret: string): SecretBox => new SecretBox(appSecret, 'batch-item-passwords');
