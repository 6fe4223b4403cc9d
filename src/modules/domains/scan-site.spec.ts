import { defaultSiteMatcher, hostnameOf, malformedHost, siteKey } from './scan-site';

describe('scan sites', () => {
  it('reads the host name of a Host header: lower case, no port, no trailing dot', () => {
    expect(hostnameOf('Go.Acme.Example')).toBe('go.acme.example');
    expect(hostnameOf('go.acme.example:443')).toBe('go.acme.example');
    expect(hostnameOf('go.acme.example.')).toBe('go.acme.example');
    expect(hostnameOf('go.acme.example.:8080')).toBe('go.acme.example');
    expect(hostnameOf('[::1]:3001')).toBe('[::1]');
    expect(hostnameOf('[::1]')).toBe('[::1]');
    expect(hostnameOf('')).toBe('');
  });

  it('answers the default site on SCAN_BASE_URL\'s host, and on every local name when that one is local', () => {
    const remote = defaultSiteMatcher('https://SCAN.scanlink.example:8443/');
    expect(remote('scan.scanlink.example')).toBe(true);
    expect(['localhost', '127.0.0.1', 'go.acme.example', 'scanlink.example'].some(remote)).toBe(false);
    for (const base of ['http://localhost:3001', 'http://127.0.0.1:3001', 'https://scan.localhost']) {
      const local = defaultSiteMatcher(base);
      expect(['localhost', '127.0.0.1', '[::1]', '0.0.0.0', 'scan.localhost'].every(local)).toBe(true);
      expect(local('go.acme.example')).toBe(false);
    }
  });

  it('keys cache entries by site', () => {
    expect(siteKey(null, 'AbC1234')).toBe(':AbC1234');
    expect(siteKey('dom_abc', 'AbC1234')).toBe('dom_abc:AbC1234');
  });
});

describe('malformedHost', () => {
  it('accepts host names with or without a port, IPv6 literals, and a missing or empty header', () => {
    for (const ok of [undefined, '', 'scan.example.com', 'Scan.Example.COM:443', 'localhost:3001', '127.0.0.1:8080', '[::1]', '[::1]:3001', 'a_b.example', 'x.example:65535']) {
      expect(malformedHost(ok)).toBe(false);
    }
  });
  it('refuses two values, bad ports, foreign characters and over-long values', () => {
    for (const bad of ['a.example, b.example', 'a.example:', 'a.example:65536', 'a.example:123456', `a.example:${'9'.repeat(8000)}`, 'a.example:80x', ':80', 'a b.example', 'a.example/x', 'user@a.example', '[::1', '[zz]:1', '[::1]x', 'x'.repeat(262)]) {
      expect(malformedHost(bad)).toBe(true);
    }
  });
});
