import { createHmac, timingSafeEqual } from 'node:crypto';
import { ScanlinkSignatureError } from './errors';
import type { components } from './schema';

export type WebhookEvent = components['schemas']['EventDto'];

/** The spec's clock tolerance: a delivery signed more than 5 minutes away from the receiver's clock is refused. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signature's `t` and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Unix seconds to compare with (default: now); for tests. */
  now?: number;
}

/**
 * Checks a delivery's `Scanlink-Signature` header and returns the parsed event; throws `ScanlinkSignatureError`.
 *
 * `rawBody` must be the body exactly as received (a string or a Buffer), before any JSON parsing: the signature is an
 * HMAC-SHA256 over `<t>.<raw body>` keyed with the endpoint secret (`whsec_…`), hex-encoded in each `v1=` entry
 * (two during a secret rotation; either may match). Compared in constant time.
 */
export function verifyWebhook(rawBody: string | Buffer | Uint8Array, signatureHeader: string | string[] | null | undefined, secret: string, options: VerifyWebhookOptions = {}): WebhookEvent {
  const header = Array.isArray(signatureHeader) ? signatureHeader.join(',') : signatureHeader;
  if (!header) throw new ScanlinkSignatureError('missing_header', 'No Scanlink-Signature header');
  if (typeof secret !== 'string' || secret === '') throw new TypeError('verifyWebhook needs the endpoint secret (whsec_…)');
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TypeError('verifyWebhook needs the raw body as received (a string or a Buffer), not a parsed object: read it with express.raw() or before JSON parsing');
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // A NaN tolerance (`Number(process.env.UNSET)`) would accept any timestamp: refused instead.
  if (!(tolerance >= 0)) throw new RangeError(`toleranceSeconds must be a number ≥ 0 (got ${options.toleranceSeconds})`);
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) throw new ScanlinkSignatureError('malformed_header', 'The Scanlink-Signature header has no t= timestamp or no v1= signature');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance) {
    throw new ScanlinkSignatureError('timestamp_out_of_tolerance', `The signature's timestamp is ${Math.abs(now - timestamp)} s away from now (tolerance ${tolerance} s)`);
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
  const matches = signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  if (!matches) throw new ScanlinkSignatureError('signature_mismatch', 'No v1 signature matches: wrong secret, or the body was changed');
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ScanlinkSignatureError('invalid_body', 'The signed body is not JSON');
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) throw new ScanlinkSignatureError('invalid_body', 'The signed body is not a JSON object (an event)');
  return event as WebhookEvent;
}
