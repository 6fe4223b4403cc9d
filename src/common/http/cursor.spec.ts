import { ApiException } from '../errors/api.exception';
import { CursorCodec, queryFingerprint } from './cursor';

describe('CursorCodec', () => {
  const codec = new CursorCodec('a-test-secret-of-some-length');
  const owner = { organizationId: 'org_a', environment: 'live' };
  const fp = queryFingerprint(owner, { sort: 'name', order: 'asc', kind: 'all' });

  it('round-trips a position for the same query', () => {
    const cursor = codec.encode({ v: 'Menu', id: 'qr_abc' }, fp);
    expect(codec.decode(cursor, fp)).toEqual({ v: 'Menu', id: 'qr_abc' });
  });

  it('keeps numbers and nulls', () => {
    expect(codec.decode(codec.encode({ v: 42, id: 'qr_x' }, fp), fp)).toEqual({ v: 42, id: 'qr_x' });
    expect(codec.decode(codec.encode({ v: null, id: 'qr_x' }, fp), fp)).toEqual({ v: null, id: 'qr_x' });
  });

  it('refuses a cursor whose payload was edited', () => {
    const cursor = codec.encode({ v: 'Menu', id: 'qr_abc' }, fp);
    const [payload, sig] = cursor.split('.');
    const edited = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), id: 'qr_other' })).toString('base64url');
    expect(() => codec.decode(`${edited}.${sig}`, fp)).toThrow(/altered/);
  });

  it('refuses a cursor signed with another secret', () => {
    const other = new CursorCodec('another-secret-of-some-length').encode({ v: 1, id: 'qr_a' }, fp);
    expect(() => codec.decode(other, fp)).toThrow(ApiException);
  });

  it('refuses a cursor reused with other filters or sort', () => {
    const cursor = codec.encode({ v: 'Menu', id: 'qr_abc' }, fp);
    const otherFp = queryFingerprint(owner, { sort: 'name', order: 'desc', kind: 'all' });
    try {
      codec.decode(cursor, otherFp);
      throw new Error('expected a refusal');
    } catch (err) {
      expect(err).toBeInstanceOf(ApiException);
      expect((err as ApiException).status).toBe(400);
      expect((err as ApiException).extras.field).toBe('cursor');
      expect((err as ApiException).message).toMatch(/other filters/);
    }
  });

  it.each(['', 'garbage', 'a.b.c', '%%%.sig', 'x'.repeat(2000)])('refuses malformed cursor %p', (bad) => {
    expect(() => codec.decode(bad, fp)).toThrow(ApiException);
  });

  it('ignores limit and cursor in the fingerprint, and key order', () => {
    expect(queryFingerprint(owner, { a: 1, b: 2, limit: 5 })).toBe(queryFingerprint(owner, { b: 2, a: 1, cursor: 'x' }));
    expect(queryFingerprint(owner, { a: 1 })).not.toBe(queryFingerprint(owner, { a: 2 }));
  });

  it('binds a cursor to the workspace and environment it lists', () => {
    const cursor = codec.encode({ v: 'Menu', id: 'qr_abc' }, fp);
    const query = { sort: 'name', order: 'asc', kind: 'all' };
    for (const other of [{ organizationId: 'org_b', environment: 'live' }, { organizationId: 'org_a', environment: 'test' }, { organizationId: 'org_a' }]) {
      expect(() => codec.decode(cursor, queryFingerprint(other, query))).toThrow(/another workspace/);
    }
  });
});
