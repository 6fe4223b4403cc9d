import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
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
export class SecretBox {
  private readonly key: Buffer;

  constructor(appSecret: string) {
    this.key = createHash('sha256').update(`scanlink:webhook-secrets:${appSecret}`).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unreadable sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}
