import { hash, verify } from '@node-rs/argon2';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { ApiException } from '../../common/errors/api.exception';
import type { QrKind } from './target-handler';
import { characters, checkHttpUrl, parseRfc3339 } from './fields';

/**
 * Link controls of a dynamic code (docs/link-controls.md): an expiry date, a scan limit, where an expired scan goes,
 * and a password. Create and PATCH take the same fields; null clears one. GS1 codes take expires_at and expired_url.
 */
export const LINK_CONTROL_FIELDS = ['expires_at', 'max_scans', 'expired_url', 'password'] as const;
const GS1_FIELDS = new Set(['expires_at', 'expired_url']);
export const MAX_SCANS_LIMIT = 10_000_000;

/** The request fields (create bodies, batch items, PATCH). Checked by parseLinkControls, not by class-validator. */
export class LinkControlFields {
  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2030-12-31T23:59:59Z',
    description: 'Dynamic codes: after this instant (RFC 3339, in the future when set) a scan gets `expired_url` or the 410 expired page. null clears it.',
  })
  @IsOptional()
  expires_at?: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_SCANS_LIMIT,
    example: 1000,
    description: 'Dynamic codes (not GS1): once this many scans are counted, later scans are expired. null clears it.',
  })
  @IsOptional()
  max_scans?: number | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'https://example.com/offer-ended',
    description: 'https URL an expired scan is redirected to (302); without it, the hosted 410 expired page. null clears it.',
  })
  @IsOptional()
  expired_url?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    minLength: 4,
    maxLength: 128,
    writeOnly: true,
    example: 'open sesame',
    description: 'Dynamic codes (not GS1): visitors must enter it on a hosted password page first. Write-only (stored as an argon2id hash; the code shows `has_password`). null removes it.',
  })
  @IsOptional()
  password?: string | null;
}

/** What to store: a field absent from the request is undefined (unchanged), null clears it. */
export interface LinkControlChanges {
  expiresAt?: Date | null;
  maxScans?: number | null;
  expiredUrl?: string | null;
  passwordHash?: string | null;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Validates the link-control fields of a body for a code of this kind and type, and hashes a new password. */
export async function parseLinkControls(
  body: Partial<Record<(typeof LINK_CONTROL_FIELDS)[number], unknown>>,
  code: { kind: QrKind; type: string },
  now = Date.now(),
): Promise<LinkControlChanges> {
  const out: LinkControlChanges = {};
  for (const field of LINK_CONTROL_FIELDS) {
    const v = body[field];
    if (v === undefined) continue;
    if (code.kind === 'static' && v !== null) throw ApiException.invalid(field, `${field} applies to dynamic codes only`);
    if (code.type === 'gs1' && !GS1_FIELDS.has(field)) throw ApiException.invalid(field, `GS1 codes take expires_at and expired_url only, not ${field}`);
  }
  if (body.expires_at !== undefined) {
    const v = body.expires_at;
    if (v === null) out.expiresAt = null;
    else {
      // A real calendar date and time (no 2026-02-30, no 24:00:00), seconds and a zone: parseRfc3339.
      const ms = typeof v === 'string' ? parseRfc3339(v) : null;
      if (ms === null) throw ApiException.invalid('expires_at', 'expires_at must be an RFC 3339 date-time with a zone, such as 2030-12-31T23:59:59Z');
      const at = new Date(ms);
      if (at.getTime() <= now) throw ApiException.invalid('expires_at', 'expires_at must be in the future');
      out.expiresAt = at;
    }
  }
  if (body.max_scans !== undefined) {
    const v = body.max_scans;
    if (v !== null && (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_SCANS_LIMIT)) {
      throw ApiException.invalid('max_scans', `max_scans must be an integer from 1 to ${MAX_SCANS_LIMIT.toLocaleString('en-US')}, or null`);
    }
    out.maxScans = v;
  }
  if (body.expired_url !== undefined) {
    const v = body.expired_url;
    if (v === null) out.expiredUrl = null;
    else {
      if (typeof v !== 'string' || v.length > 2048) throw ApiException.invalid('expired_url', 'expired_url must be an https URL of at most 2048 characters');
      if (!v.trim().toLowerCase().startsWith('https:') || !URL.canParse(v)) throw ApiException.invalid('expired_url', 'expired_url must be an absolute https URL');
      checkHttpUrl(v, 'expired_url');
      out.expiredUrl = new URL(v).href;
    }
  }
  if (body.password !== undefined) {
    const v = body.password;
    if (v === null) out.passwordHash = null;
    else {
      if (typeof v !== 'string' || characters(v) < 4 || characters(v) > 128) throw ApiException.invalid('password', 'password must be 4 to 128 characters');
      if (CONTROL.test(v)) throw ApiException.invalid('password', 'password must not contain control characters');
      out.passwordHash = await hashPassword(v);
    }
  }
  return out;
}

/** argon2id (the @node-rs/argon2 default: m = 19 MiB, t = 2, p = 1, OWASP's recommendation). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
