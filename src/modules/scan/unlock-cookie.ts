import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a right password keeps a code open in that browser. */
export const UNLOCK_TTL_SECONDS = 12 * 3600;

/** One cookie per code (its short code in the name), so unlocking one code opens no other. */
export const unlockCookieName = (shortCode: string): string => `scanlink_unlock_${shortCode}`;

const mac = (secret: string, codeId: string, tag: string, expires: number): string =>
  createHmac('sha256', secret).update(`scan-unlock:${codeId}:${tag}:${expires}`).digest('base64url');

/** `<expiry seconds>.<HMAC(APP_SECRET, code id, password tag, expiry)>`: bound to the code and to its current password
 * (a new password changes the tag), checked without any I/O. */
export function unlockCookieValue(secret: string, codeId: string, passwordTag: string, nowMs: number): string {
  const expires = Math.floor(nowMs / 1000) + UNLOCK_TTL_SECONDS;
  return `${expires}.${mac(secret, codeId, passwordTag, expires)}`;
}

/** The Set-Cookie header of an unlocked code: httpOnly, SameSite=Lax (the visitor comes back by a top-level GET), Secure
 * when the scan host is served over https. */
export function unlockSetCookie(shortCode: string, value: string, secure: boolean): string {
  return `${unlockCookieName(shortCode)}=${value}; Path=/; Max-Age=${UNLOCK_TTL_SECONDS}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Whether the request's Cookie header holds a valid, unexpired unlock cookie for this code and password. */
export function isUnlocked(secret: string, cookieHeader: string | undefined, shortCode: string, codeId: string, passwordTag: string, nowMs: number): boolean {
  if (!cookieHeader) return false;
  const name = `${unlockCookieName(shortCode)}=`;
  let at = cookieHeader.indexOf(name);
  while (at > 0 && cookieHeader[at - 1] !== ' ' && cookieHeader[at - 1] !== ';') at = cookieHeader.indexOf(name, at + 1);
  if (at < 0) return false;
  const end = cookieHeader.indexOf(';', at);
  const value = cookieHeader.slice(at + name.length, end < 0 ? undefined : end).trim();
  const dot = value.indexOf('.');
  if (dot <= 0) return false;
  const expires = Number(value.slice(0, dot));
  if (!Number.isInteger(expires) || expires * 1000 <= nowMs || expires * 1000 > nowMs + UNLOCK_TTL_SECONDS * 1000 + 60_000) return false;
  const given = Buffer.from(value.slice(dot + 1));
  const expected = Buffer.from(mac(secret, codeId, passwordTag, expires));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
