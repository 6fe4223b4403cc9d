import { loadConfig } from './config';

const base = { DATABASE_URL: 'postgres://u:p@localhost:5432/db', REDIS_URL: 'redis://localhost:6379' };

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

  it('hides secrets in the message', () => {
    try {
      loadConfig({ ...base, DATABASE_URL: 'mysql://root:hunter2@x/db' });
    } catch (err) {
      expect((err as Error).message).toContain('DATABASE_URL=(hidden)');
      expect((err as Error).message).not.toContain('hunter2');
    }
  });

  it('requires DATABASE_URL and REDIS_URL', () => {
    expect(() => loadConfig({})).toThrow(/DATABASE_URL[\s\S]*REDIS_URL/);
  });

  it('parses webhook tunables', () => {
    const c = loadConfig({ ...base, WEBHOOK_RETRY_DELAYS: '10,20', WEBHOOK_ALLOW_HOSTS: 'localhost, 127.0.0.1' });
    expect(c.webhookRetryDelaysMs).toEqual([10, 20]);
    expect(c.webhookAllowHosts).toEqual(['localhost', '127.0.0.1']);
  });
});
