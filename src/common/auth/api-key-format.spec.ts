import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyPrefix } from './api-key-format';

describe('API key format', () => {
  it('makes qr_live_ and qr_test_ keys with 32 base62 characters', () => {
    expect(generateApiKey('live')).toMatch(/^qr_live_[0-9A-Za-z]{32}$/);
    expect(generateApiKey('test')).toMatch(/^qr_test_[0-9A-Za-z]{32}$/);
  });

  it('hashes with SHA-256 (hex), never storing the key', () => {
    const key = generateApiKey('live');
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).not.toContain(key.slice(8));
  });

  it('shows the first 12 characters as the prefix', () => {
    const key = generateApiKey('test');
    expect(keyPrefix(key)).toBe(key.slice(0, 12));
    expect(keyPrefix(key)).toMatch(/^qr_test_.{4}$/);
  });

  it('recognises malformed keys', () => {
    expect(isWellFormedApiKey(generateApiKey('live'))).toBe(true);
    expect(isWellFormedApiKey('qr_prod_' + 'a'.repeat(32))).toBe(false);
    expect(isWellFormedApiKey('qr_live_' + 'a'.repeat(31))).toBe(false);
    expect(isWellFormedApiKey('qr_live_' + 'a'.repeat(31) + '-')).toBe(false);
  });
});
