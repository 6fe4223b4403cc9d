import { ApiException } from '../../common/errors/api.exception';
import { parseLinkControls, passwordMatches } from './link-controls';

const dynamic = { kind: 'dynamic' as const, type: 'url' };
async function fieldOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiException) return err.extras.field;
    throw err;
  }
  return undefined;
}

describe('link controls', () => {
  const now = Date.parse('2026-05-01T12:00:00Z');

  it('parses every field, null clears, absent leaves alone', async () => {
    const out = await parseLinkControls({ expires_at: '2026-06-01T00:00:00+02:00', max_scans: 10, expired_url: 'https://example.com/over' }, dynamic, now);
    expect(out).toEqual({ expiresAt: new Date('2026-05-31T22:00:00Z'), maxScans: 10, expiredUrl: 'https://example.com/over' });
    expect(await parseLinkControls({ expires_at: null, max_scans: null, expired_url: null, password: null }, dynamic, now)).toEqual({
      expiresAt: null,
      maxScans: null,
      expiredUrl: null,
      passwordHash: null,
    });
    expect(await parseLinkControls({}, dynamic, now)).toEqual({});
  });

  it('hashes the password with argon2id', async () => {
    const { passwordHash } = await parseLinkControls({ password: 'open sesame' }, dynamic, now);
    expect(passwordHash).toMatch(/^\$argon2id\$/);
    expect(await passwordMatches(passwordHash!, 'open sesame')).toBe(true);
    expect(await passwordMatches(passwordHash!, 'open sesame!')).toBe(false);
    expect(await passwordMatches('not a hash', 'x')).toBe(false);
  });

  it('says https when an expired_url has another scheme', async () => {
    await expect(parseLinkControls({ expired_url: 'ftp://example.com/over' }, dynamic, now)).rejects.toThrow('expired_url must be an absolute https URL');
  });

  it.each([
    [{ expires_at: '2026-04-01T00:00:00Z' }, 'expires_at'],
    [{ expires_at: '2026-06-01' }, 'expires_at'],
    [{ expires_at: 12 }, 'expires_at'],
    [{ expires_at: '2099-02-30T00:00:00Z' }, 'expires_at'],
    [{ expires_at: '2099-01-01T24:00:00Z' }, 'expires_at'],
    [{ max_scans: 0 }, 'max_scans'],
    [{ max_scans: 1.5 }, 'max_scans'],
    [{ max_scans: '10' }, 'max_scans'],
    [{ max_scans: 10_000_001 }, 'max_scans'],
    [{ expired_url: 'http://example.com' }, 'expired_url'],
    [{ expired_url: 'javascript:alert(1)' }, 'expired_url'],
    [{ password: 'abc' }, 'password'],
    [{ password: 'x'.repeat(129) }, 'password'],
    [{ password: 'ab\u0000cd' }, 'password'],
  ])('%j → 400 on %s', async (body, field) => {
    expect(await fieldOf(parseLinkControls(body, dynamic, now))).toBe(field);
  });

  it('GS1 codes take expires_at and expired_url only; static codes none', async () => {
    const gs1 = { kind: 'dynamic' as const, type: 'gs1' };
    expect(await fieldOf(parseLinkControls({ max_scans: 3 }, gs1, now))).toBe('max_scans');
    expect(await fieldOf(parseLinkControls({ password: 'abcd' }, gs1, now))).toBe('password');
    expect(await parseLinkControls({ expired_url: 'https://example.com/' }, gs1, now)).toEqual({ expiredUrl: 'https://example.com/' });
    expect(await fieldOf(parseLinkControls({ expires_at: '2027-01-01T00:00:00Z' }, { kind: 'static', type: 'url' }, now))).toBe('expires_at');
  });
});
