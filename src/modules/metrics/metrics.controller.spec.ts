import { bearerMatches } from './metrics.controller';

describe('bearerMatches', () => {
  it('accepts exactly the token as a Bearer credential', () => {
    const token = 'a-metrics-token-0123456789';
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true);
    for (const header of [undefined, '', 'Bearer', `Bearer ${token}x`, `Basic ${token}`, `Bearer ${token.slice(1)}`, `Bearer ${token} extra`]) {
      expect(bearerMatches(header, token)).toBe(false);
    }
  });
});
