import { checkPassword, hashPassword, passwordProblem } from './passwords';

describe('passwords', () => {
  it('hashes with argon2id and verifies', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await checkPassword(hash, 'correct horse battery staple')).toBe(true);
    expect(await checkPassword(hash, 'wrong horse battery staple')).toBe(false);
  });

  it('refuses without a stored hash, after the same work', async () => {
    expect(await checkPassword(null, 'anything at all here')).toBe(false);
  });

  it('needs at least 12 characters', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('twelve chars')).toBeNull();
    expect(passwordProblem('x'.repeat(257))).toMatch(/at most 256/);
    // Characters, not UTF-16 units, at both ends: 150 emoji are 150 characters; 11 are too few.
    expect(passwordProblem('😀'.repeat(150))).toBeNull();
    expect(passwordProblem('😀'.repeat(11))).toMatch(/at least 12/);
    expect(passwordProblem('😀'.repeat(257))).toMatch(/at most 256/);
  });
});
