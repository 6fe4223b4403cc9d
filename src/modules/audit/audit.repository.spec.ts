import { auditValue, creationChanges, REDACTED, snake } from './audit.repository';

describe('audit values', () => {
  it('redacts secrets, passwords, hashes and tokens whatever their value', () => {
    for (const field of ['secret_enc', 'previous_secret_enc', 'key_hash', 'password', 'password_hash', 'token', 'secret', 'key']) {
      expect(auditValue(field, 'x')).toBe(REDACTED);
    }
    expect(auditValue('secret_enc', null)).toBeNull();
  });

  it('keeps other values, dates as ISO strings', () => {
    expect(auditValue('name', 'Flyer')).toBe('Flyer');
    expect(auditValue('target', { destination: 'https://a.example' })).toEqual({ destination: 'https://a.example' });
    expect(auditValue('deleted_at', new Date('2026-01-02T03:04:05.000Z'))).toBe('2026-01-02T03:04:05.000Z');
    expect(auditValue('key_prefix', 'qr_live_AbCd')).toBe('qr_live_AbCd');
  });

  it('names fields in snake_case and records creations as [null, value]', () => {
    expect(snake('secretEnc')).toBe('secret_enc');
    expect(creationChanges({ id: 'qr_1', object: 'qr_code', name: 'A' })).toEqual({ name: [null, 'A'] });
  });
});
