import { ApiException } from '../../common/errors/api.exception';
import { parseCreateBody } from '../qr-codes/dto/create-body';
import type { CreateGs1QrCodeDto } from '../qr-codes/dto/gs1.dto';
import type { CreateQrCodeDto } from '../qr-codes/dto/qr-code.dto';

/** A batch item as sent, and how it becomes a POST /v1/qr-codes body. Pure: no I/O. */

/** target.type when an item leaves it out: inferred from the fields it carries. */
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

/** How an item counts against the plan: dynamic items reserve dynamic capacity when the batch is accepted. */
export function itemKind(item: Record<string, unknown>): 'dynamic' | 'static' | 'gs1' | 'other' {
  const t = item.type ?? 'dynamic';
  return t === 'dynamic' || t === 'static' || t === 'gs1' ? t : 'other';
}

/** Whether the item makes a static code (`type: "static"`, or a GS1 item in `mode: "static"`): its code id is `sqr_…`. */
export const isStaticItem = (item: Record<string, unknown>): boolean => item.type === 'static' || (item.type === 'gs1' && item.mode === 'static');

/** A GS1 item in `mode: "dynamic"` (the default): it takes room under the plan's GS1 limit. */
export const isDynamicGs1Item = (item: Record<string, unknown>): boolean => item.type === 'gs1' && item.mode !== 'static';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The item's target type as the batch reports it before the item is created. */
export function itemType(item: Record<string, unknown>): string | null {
  if (itemKind(item) === 'gs1') return 'gs1';
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
