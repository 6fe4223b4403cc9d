import { isRole, ROLE_SCOPES } from './roles';
import { SCOPES } from './scopes';

describe('roles', () => {
  it('maps owners and admins to every scope, editors to codes and reads, viewers to reads only', () => {
    expect([...ROLE_SCOPES.owner]).toEqual([...SCOPES]);
    expect([...ROLE_SCOPES.admin]).toEqual([...SCOPES]);
    expect(ROLE_SCOPES.editor).toContain('qr:write');
    expect(ROLE_SCOPES.editor).not.toContain('webhooks:write');
    expect(ROLE_SCOPES.editor).not.toContain('audit:read');
    expect(ROLE_SCOPES.viewer.every((s) => s.endsWith(':read'))).toBe(true);
    expect(ROLE_SCOPES.viewer).not.toContain('audit:read');
  });

  it('knows its roles', () => {
    expect(isRole('viewer')).toBe(true);
    expect(isRole('superuser')).toBe(false);
    expect(isRole(undefined)).toBe(false);
  });
});
