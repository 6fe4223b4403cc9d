import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CachedCode } from './scan-contract';

/** How long a right password keeps a code open in that browser. */
export const UNLOCK_TTL_SECONDS = 12 * 3600;

/** How long the page of a code with a scan limit keeps working to its end after the scan that showed it. */
export const SCAN_PASS_TTL_SECONDS = 3600;

/** The signed cookies the scan host sets for one code: `unlock` after a right password, `pass` with the page of a code
 * that has a scan limit (scanPassSetCookie). One cookie per code (its short code in the name), so that unlocking one
 * code opens no other. */
type Purpose = 'unlock' | 'pass';
const TTL_SECONDS: Record<Purpose, number> = { unlock: UNLOCK_TTL_SECONDS, pass: SCAN_PASS_TTL_SECONDS };
const cookieName = (purpose: Purpose, shortCode: string) => `scanlink_${purpose}_${shortCode}`;
export const unlockCookieName = (shortCode: string): string => cookieName('unlock', shortCode);

const mac = (secret: string, purpose: Purpose, codeId: string, tag: string, expires: number): string =>
  createHmac('sha256', secret).update(`scan-${purpose}:${codeId}:${tag}:${expires}`).digest('base64url');

const signedValue = (secret: string, purpose: Purpose, codeId: string, tag: string, nowMs: number): string => {
  const expires = Math.floor(nowMs / 1000) + TTL_SECONDS[purpose];
  return `${expires}.${mac(secret, purpose, codeId, tag, expires)}`;
};

/** `Path=/` (a code's downloads are `/{code}.vcf`, beside the code's own path), httpOnly, SameSite=Lax (the visitor comes
 * back by a top-level GET or a form post of its own page), Secure when the scan host is served over https. */
const setCookie = (purpose: Purpose, shortCode: string, value: string, secure: boolean): string =>
  `${cookieName(purpose, shortCode)}=${value}; Path=/; Max-Age=${TTL_SECONDS[purpose]}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

/** Whether the Cookie header holds a valid, unexpired cookie of this purpose for this code (and tag), without I/O. */
function holds(secret: string, purpose: Purpose, cookieHeader: string | undefined, shortCode: string, codeId: string, tag: string, nowMs: number): boolean {
  if (!cookieHeader) return false;
  const name = `${cookieName(purpose, shortCode)}=`;
  let at = cookieHeader.indexOf(name);
  while (at > 0 && cookieHeader[at - 1] !== ' ' && cookieHeader[at - 1] !== ';') at = cookieHeader.indexOf(name, at + 1);
  if (at < 0) return false;
  const end = cookieHeader.indexOf(';', at);
  const value = cookieHeader.slice(at + name.length, end < 0 ? undefined : end).trim();
  const dot = value.indexOf('.');
  if (dot <= 0) return false;
  const expires = Number(value.slice(0, dot));
  if (!Number.isInteger(expires) || expires * 1000 <= nowMs || expires * 1000 > nowMs + TTL_SECONDS[purpose] * 1000 + 60_000) return false;
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(mac(secret, purpose, codeId, tag, expires));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `<expiry seconds>.<HMAC(APP_SECRET, code id, password tag, expiry)>`: bound to the code and to its current password
 * (a new password changes the tag), checked without any I/O. */
export function unlockCookieValue(secret: string, codeId: string, passwordTag: string, nowMs: number): string {
  return signedValue(secret, 'unlock', codeId, passwordTag, nowMs);
}

/** The Set-Cookie header of an unlocked code. */
export function unlockSetCookie(shortCode: string, value: string, secure: boolean): string {
  return setCookie('unlock', shortCode, value, secure);
}

/** Whether the request's Cookie header holds a valid, unexpired unlock cookie for this code and password. */
export function isUnlocked(secret: string, cookieHeader: string | undefined, shortCode: string, codeId: string, passwordTag: string, nowMs: number): boolean {
  return holds(secret, 'unlock', cookieHeader, shortCode, codeId, passwordTag, nowMs);
}

/**
 * The scan pass: given with the hosted page of a code that has a scan limit (one hour, bound to the code), so that the
 * page the last allowed scan showed still works to its end (its file, its .vcf or .ics, its form post) once that scan
 * has used up the limit. A browser without it gets the expired answer there, as a new scan does.
 */
export function scanPassSetCookie(secret: string, shortCode: string, codeId: string, nowMs: number, secure: boolean): string {
  return setCookie('pass', shortCode, signedValue(secret, 'pass', codeId, '', nowMs), secure);
}

/** Whether the request holds a valid scan pass for this code (scanPassSetCookie). */
export function holdsScanPass(secret: string, cookieHeader: string | undefined, shortCode: string, codeId: string, nowMs: number): boolean {
  return holds(secret, 'pass', cookieHeader, shortCode, codeId, '', nowMs);
}

/**
 * Whether a code is expired for a request that follows a page view and is not a scan itself (a download, the file's
 * bytes, a form post): past the expiry date it is refused, but a used-up scan limit lets through a browser holding the
 * scan pass its page view gave it, so that the page of the last allowed scan works to its end. The one rule for the
 * scan host's downloads and file bytes and for lead posts (each with its own scan count).
 */
export function isFollowUpExpired<C extends Pick<CachedCode, 'expiresAt' | 'maxScans'>>(
  code: C,
  gate: { now: number; scansSoFar(code: C): number; holdsScanPass(code: C): boolean },
): boolean {
  const { expiresAt, maxScans } = code;
  if (expiresAt != null && gate.now >= expiresAt) return true;
  return maxScans != null && gate.scansSoFar(code) >= maxScans && !gate.holdsScanPass(code);
}
