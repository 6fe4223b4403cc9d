import { createHmac } from 'node:crypto';
import { SecretBox as SealedBox } from '../../common/crypto/secret-box';
import { randomBase62 } from '../../common/ids';

/** `whsec_` + 32 base62 characters (~190 bits from a CSPRNG). */
export function newWebhookSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

/** `v1` = hex HMAC-SHA256 over `<t>.<raw body>`, keyed with the whole `whsec_…` string (the Stripe scheme). */
export function signatureV1(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The Scanlink-Signature header: `t=<unix>,v1=<new>[,v1=<previous>]` (new secret first during the rotation window). */
export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${signatureV1(s, timestamp, body)}`)].join(',');
}

/**
 * Endpoint secrets must be recoverable (they sign every delivery), so they are sealed at rest with AES-256-GCM under
 * a key derived from APP_SECRET: a database dump alone does not reveal them. Format `v1.<iv>.<tag>.<ciphertext>`.
 */
export class SecretBox extends SealedBox {
  constructor(appSecret: string) {
    super(appSecret, 'webhook-secrets');
  }
}
