import { availableParallelism } from 'node:os';
import { loadConfig } from './config';

const secrets = { APP_SECRET: 'a-test-app-secret-0123456789', DASHBOARD_JWT_SECRET: 'a-test-dashboard-secret-0123456789' };
const base = { DATABASE_URL: 'postgres://u:p@localhost:5432/db', REDIS_URL: 'redis://localhost:6379', ...secrets };

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig(base);
    expect(c.port).toBe(3000);
    expect(c.scanPort).toBe(3001);
    expect(c.apiBaseUrl).toBe('http://localhost:3000/v1');
    expect(c.scanBaseUrl).toBe('http://localhost:3001');
    expect(c.imageBaseUrl).toBe('http://localhost:3001/images');
    expect(c.trashRetentionDays).toBe(30);
    expect(c.webhookRetryDelaysMs).toEqual([60000, 300000, 1800000, 7200000, 21600000, 86400000]);
  });

  it('names every bad value in one message', () => {
    expect(() => loadConfig({ ...base, PORT: 'abc', SCAN_BASE_URL: 'not a url', REDIS_URL: 'http://x' })).toThrow(
      /(?=[\s\S]*PORT="abc": PORT must be an integer)(?=[\s\S]*REDIS_URL="http:\/\/x")(?=[\s\S]*SCAN_BASE_URL="not a url")/,
    );
  });

  it('refuses base URLs with a query, a fragment or credentials, which would end up in every short URL', () => {
    expect(() => loadConfig({ ...base, SCAN_BASE_URL: 'http://u:p@localhost:3001/x?q=1#frag' })).toThrow(
      /SCAN_BASE_URL="http:\/\/u:p@localhost:3001\/x\?q=1#frag": must be scheme, host, port and path only, without a user name or password, a query, a fragment/,
    );
    expect(() => loadConfig({ ...base, API_BASE_URL: 'https://api.example.com/v1?' })).toThrow(/API_BASE_URL=.*without a query/);
    expect(() => loadConfig({ ...base, IMAGE_BASE_URL: 'https://cdn.example.com/i#x' })).toThrow(/IMAGE_BASE_URL=.*without a fragment/);
    expect(loadConfig({ ...base, SCAN_BASE_URL: 'https://go.example.com/q/' }).scanBaseUrl).toBe('https://go.example.com/q');
  });

  it('takes MAIL_FROM as an address or a name with one, nothing else', () => {
    expect(loadConfig({ ...base, MAIL_FROM: 'Scanlink <no-reply@example.com>' }).mailFrom).toBe('Scanlink <no-reply@example.com>');
    expect(loadConfig({ ...base, MAIL_FROM: 'ops@example.com' }).mailFrom).toBe('ops@example.com');
    expect(() => loadConfig({ ...base, MAIL_FROM: 'not an address <<' })).toThrow(/MAIL_FROM="not an address <<": must be an e-mail address/);
    expect(() => loadConfig({ ...base, MAIL_FROM: 'Name <not-an-address>' })).toThrow(/MAIL_FROM=/);
  });

  it('hides secrets in the message', () => {
    try {
      loadConfig({ ...base, DATABASE_URL: 'mysql://root:hunter2@x/db' });
    } catch (err) {
      expect((err as Error).message).toContain('DATABASE_URL=(hidden)');
      expect((err as Error).message).not.toContain('hunter2');
    }
  });

  it('refuses to start without APP_SECRET or a dashboard verifier, in every environment', () => {
    for (const NODE_ENV of ['development', 'test', 'production']) {
      expect(() => loadConfig({ ...base, NODE_ENV, APP_SECRET: undefined })).toThrow(/APP_SECRET is required/);
      expect(() => loadConfig({ ...base, NODE_ENV, DASHBOARD_JWT_SECRET: undefined })).toThrow(/DASHBOARD_JWT_SECRET or DASHBOARD_JWKS_URL is required/);
    }
    expect(loadConfig({ ...base, DASHBOARD_JWT_SECRET: undefined, DASHBOARD_JWKS_URL: 'https://idp.example.com/jwks.json' }).dashboardJwtSecret).toBeUndefined();
  });

  it('trusts no proxy unless TRUST_PROXY names one', () => {
    expect(loadConfig(base).trustProxy).toBe('');
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toBe('10.0.0.0/8');
    expect(loadConfig({ ...base, TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'not_an_ip!!' })).toThrow(/Invalid configuration:\n  TRUST_PROXY must be/);
  });

  it('reads the empty values docker/compose.yaml passes for unset variables as unset', () => {
    const c = loadConfig({ ...base, MAIL_FROM: '', S3_FORCE_PATH_STYLE: '', DASHBOARD_JWKS_URL: '' });
    expect(c.mailFrom).toBe('Scanlink <no-reply@scanlink.local>');
    expect(c.dashboardJwksUrl).toBeUndefined();
    expect(() => loadConfig({ ...base, DASHBOARD_JWT_SECRET: '', DASHBOARD_JWKS_URL: '' })).toThrow(/DASHBOARD_JWT_SECRET or DASHBOARD_JWKS_URL is required/);
  });

  it('stops on a bad LOG_FORMAT or PASSWORD_HASH_CONCURRENCY, which other modules read', () => {
    expect(() => loadConfig({ ...base, LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT must be pretty or json/);
    for (const bad of ['abc', '1.5', '0']) expect(() => loadConfig({ ...base, PASSWORD_HASH_CONCURRENCY: bad })).toThrow(/PASSWORD_HASH_CONCURRENCY/);
    expect(() => loadConfig({ ...base, LOG_FORMAT: 'json', PASSWORD_HASH_CONCURRENCY: '2' })).not.toThrow();
  });

  it('requires DATABASE_URL and REDIS_URL', () => {
    expect(() => loadConfig({})).toThrow(/DATABASE_URL[\s\S]*REDIS_URL/);
  });

  it('takes PNG_RENDER_PROCESSES from 1 to 16, by default one renderer per core (at most 4)', () => {
    expect(loadConfig(base).pngRenderProcesses).toBe(Math.max(1, Math.min(4, availableParallelism())));
    expect(loadConfig({ ...base, PNG_RENDER_PROCESSES: '16' }).pngRenderProcesses).toBe(16);
    for (const bad of ['0', '17', '2.5', 'two']) expect(() => loadConfig({ ...base, PNG_RENDER_PROCESSES: bad })).toThrow(/PNG_RENDER_PROCESSES/);
  });

  it('parses webhook tunables', () => {
    const c = loadConfig({ ...base, WEBHOOK_RETRY_DELAYS: '10,20', WEBHOOK_ALLOW_HOSTS: 'localhost, 127.0.0.1' });
    expect(c.webhookRetryDelaysMs).toEqual([10, 20]);
    expect(c.webhookAllowHosts).toEqual(['localhost', '127.0.0.1']);
  });

  it('single sign-on takes OIDC_ISSUER_URL, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together, over https in production', () => {
    const oidc = { OIDC_ISSUER_URL: 'https://login.example.com/realms/acme', OIDC_CLIENT_ID: 'scanlink', OIDC_CLIENT_SECRET: 'a-client-secret' };
    expect(loadConfig(base).oidc).toBeUndefined();
    expect(loadConfig({ ...base, ...oidc }).oidc).toEqual({ issuerUrl: 'https://login.example.com/realms/acme', clientId: 'scanlink', clientSecret: 'a-client-secret' });
    expect(() => loadConfig({ ...base, ...oidc, OIDC_CLIENT_SECRET: '' })).toThrow(/required together/);
    expect(() => loadConfig({ ...base, ...oidc, NODE_ENV: 'production', OIDC_ISSUER_URL: 'http://keycloak:8080/realms/acme' })).toThrow(/https in production/);
    expect(loadConfig({ ...base, ...oidc, OIDC_ISSUER_URL: 'http://keycloak:8080/realms/acme' }).oidc?.issuerUrl).toBe('http://keycloak:8080/realms/acme');
    expect(() => loadConfig({ ...base, ...oidc, DASHBOARD_JWT_SECRET: undefined, DASHBOARD_JWKS_URL: 'https://idp.example.com/jwks.json' })).toThrow(/needs DASHBOARD_JWT_SECRET/);
    // The secret never appears in a configuration error.
    expect(() => loadConfig({ ...base, ...oidc, OIDC_ISSUER_URL: 'not a url' })).toThrow(/OIDC_ISSUER_URL/);
  });
});
