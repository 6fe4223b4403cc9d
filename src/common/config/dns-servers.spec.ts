import { loadConfig } from './config';
import { parseDnsServers } from './dns-servers';

describe('parseDnsServers', () => {
  it('keeps IPv4 and bracketed IPv6 entries, with or without a port', () => {
    expect(parseDnsServers(' 127.0.0.1:5353, 1.1.1.1 ,[::1]:53,::1')).toEqual({ servers: ['127.0.0.1:5353', '1.1.1.1', '[::1]:53', '::1'] });
  });

  it('is empty for an empty value (the system resolvers stay)', () => {
    expect(parseDnsServers('')).toEqual({ servers: [] });
  });

  it.each(['dns.example:53', '127.0.0.1:0', '127.0.0.1:70000', '[dns.example]:53', '127.0.0.1:53:1', '300.1.1.1'])('refuses %s', (entry) => {
    expect(parseDnsServers(entry)).toEqual({ error: expect.stringContaining(entry) });
  });

  it('stops the process at boot on a bad value', () => {
    const env = { DATABASE_URL: 'postgres://x/y', REDIS_URL: 'redis://x', APP_SECRET: 'a-test-app-secret-0123456789', DASHBOARD_JWT_SECRET: 'a-test-dashboard-secret-0123456789' };
    expect(() => loadConfig({ ...env, DOMAIN_DNS_SERVERS: 'resolver.local' })).toThrow(/DOMAIN_DNS_SERVERS entry "resolver.local"/);
    expect(loadConfig({ ...env, DOMAIN_DNS_SERVERS: '127.0.0.1:5300' }).domainDnsServers).toEqual(['127.0.0.1:5300']);
    expect(loadConfig(env).domainDnsServers).toEqual([]);
  });
});
