import { holdsScanPass, isUnlocked, SCAN_PASS_TTL_SECONDS, scanPassSetCookie, UNLOCK_TTL_SECONDS, unlockCookieName, unlockCookieValue, unlockSetCookie } from './unlock-cookie';

describe('unlock cookie', () => {
  const secret = 'test-secret-0123456789abcdef';
  const now = Date.parse('2026-05-01T12:00:00Z');
  const value = unlockCookieValue(secret, 'qr_code1', 'tag1', now);
  const header = (v: string, name = unlockCookieName('aB3dE9x')) => `theme=dark; ${name}=${v}; other=1`;

  it('opens the code it was made for, with its current password, for 12 hours', () => {
    expect(isUnlocked(secret, header(value), 'aB3dE9x', 'qr_code1', 'tag1', now)).toBe(true);
    expect(isUnlocked(secret, header(value), 'aB3dE9x', 'qr_code1', 'tag1', now + (UNLOCK_TTL_SECONDS - 1) * 1000)).toBe(true);
    expect(isUnlocked(secret, header(value), 'aB3dE9x', 'qr_code1', 'tag1', now + UNLOCK_TTL_SECONDS * 1000)).toBe(false);
  });

  it('refuses another code, a changed password, another secret, a forged or missing value', () => {
    expect(isUnlocked(secret, header(value), 'aB3dE9x', 'qr_code2', 'tag1', now)).toBe(false);
    expect(isUnlocked(secret, header(value), 'aB3dE9x', 'qr_code1', 'tag2', now)).toBe(false);
    expect(isUnlocked('another-secret-0123456789', header(value), 'aB3dE9x', 'qr_code1', 'tag1', now)).toBe(false);
    const [exp, mac] = value.split('.');
    expect(isUnlocked(secret, header(`${Number(exp) + 3600}.${mac}`), 'aB3dE9x', 'qr_code1', 'tag1', now)).toBe(false);
    expect(isUnlocked(secret, header(`${exp}.${mac.slice(1)}`), 'aB3dE9x', 'qr_code1', 'tag1', now)).toBe(false);
    expect(isUnlocked(secret, header(value, unlockCookieName('zzzzzzz')), 'aB3dE9x', 'qr_code1', 'tag1', now)).toBe(false);
    expect(isUnlocked(secret, `x${unlockCookieName('aB3dE9x')}=${value}`, 'aB3dE9x', 'qr_code1', 'tag1', now)).toBe(false);
    expect(isUnlocked(secret, undefined, 'aB3dE9x', 'qr_code1', 'tag1', now)).toBe(false);
  });

  it('is httpOnly, SameSite=Lax, Secure on https', () => {
    expect(unlockSetCookie('aB3dE9x', value, true)).toBe(`scanlink_unlock_aB3dE9x=${value}; Path=/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure`);
    expect(unlockSetCookie('aB3dE9x', value, false)).not.toContain('Secure');
  });

  it('scan pass: one hour, for the code it was given with only, and never an unlock', () => {
    const set = scanPassSetCookie(secret, 'aB3dE9x', 'qr_code1', now, false);
    expect(set).toMatch(/^scanlink_pass_aB3dE9x=\d+\.[\w-]+; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/);
    expect(scanPassSetCookie(secret, 'aB3dE9x', 'qr_code1', now, true)).toMatch(/; Secure$/);
    const cookie = `a=1; ${set.split(';')[0]}`;
    expect(holdsScanPass(secret, cookie, 'aB3dE9x', 'qr_code1', now + (SCAN_PASS_TTL_SECONDS - 1) * 1000)).toBe(true);
    expect(holdsScanPass(secret, cookie, 'aB3dE9x', 'qr_code1', now + SCAN_PASS_TTL_SECONDS * 1000)).toBe(false);
    expect(holdsScanPass(secret, cookie, 'aB3dE9x', 'qr_code2', now)).toBe(false);
    expect(holdsScanPass('another-secret-0123456789', cookie, 'aB3dE9x', 'qr_code1', now)).toBe(false);
    // Neither cookie stands in for the other, even with the same value.
    const passValue = set.split(';')[0].split('=')[1];
    expect(isUnlocked(secret, header(passValue), 'aB3dE9x', 'qr_code1', '', now)).toBe(false);
    expect(holdsScanPass(secret, `scanlink_pass_aB3dE9x=${unlockCookieValue(secret, 'qr_code1', '', now)}`, 'aB3dE9x', 'qr_code1', now)).toBe(false);
  });
});
