import { basicPasswordMatches } from './queue-board';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

describe('basicPasswordMatches', () => {
  const token = 'an-admin-token-0123456789';
  it('accepts any user name with the token as password', () => {
    for (const user of ['admin', '', 'someone']) expect(basicPasswordMatches(basic(`${user}:${token}`), token)).toBe(true);
  });
  it('refuses anything else', () => {
    for (const header of [undefined, '', `Bearer ${token}`, basic(token), basic(`${token}:x`), basic(`admin:${token}x`), 'Basic !!!']) {
      expect(basicPasswordMatches(header, token)).toBe(false);
    }
  });
});
