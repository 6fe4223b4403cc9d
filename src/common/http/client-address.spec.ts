import { arrivedOverHttps, parseTrustProxy } from './client-address';

const request = (headers: Record<string, string>, socket: { remoteAddress?: string; encrypted?: boolean }) => ({ headers, socket });

describe('arrivedOverHttps', () => {
  const loopback = parseTrustProxy('loopback');

  it('is true for TLS on the socket itself, whatever the trust', () => {
    expect(arrivedOverHttps(request({}, { remoteAddress: '203.0.113.5', encrypted: true }), false)).toBe(true);
    expect(arrivedOverHttps(request({ 'x-forwarded-proto': 'https' }, { remoteAddress: '203.0.113.5', encrypted: false }), loopback)).toBe(false);
  });

  it('takes X-Forwarded-Proto (its last entry) only from a trusted proxy', () => {
    expect(arrivedOverHttps(request({ 'x-forwarded-proto': 'https' }, { remoteAddress: '127.0.0.1' }), loopback)).toBe(true);
    expect(arrivedOverHttps(request({ 'x-forwarded-proto': 'HTTPS ' }, { remoteAddress: '127.0.0.1' }), loopback)).toBe(true);
    expect(arrivedOverHttps(request({ 'x-forwarded-proto': 'http, https' }, { remoteAddress: '127.0.0.1' }), loopback)).toBe(true);
    expect(arrivedOverHttps(request({ 'x-forwarded-proto': 'https, http' }, { remoteAddress: '127.0.0.1' }), loopback)).toBe(false);
    expect(arrivedOverHttps(request({ 'x-forwarded-proto': 'http' }, { remoteAddress: '127.0.0.1', encrypted: true }), loopback)).toBe(false);
    expect(arrivedOverHttps(request({ 'x-forwarded-proto': 'https' }, { remoteAddress: '127.0.0.1' }), false)).toBe(false);
    expect(arrivedOverHttps(request({ 'x-forwarded-proto': 'https' }, { remoteAddress: '10.0.0.1' }), true)).toBe(true);
    expect(arrivedOverHttps(request({}, { remoteAddress: '127.0.0.1' }), loopback)).toBe(false);
  });
});
