import type { Redis } from 'ioredis';
import { REDIS } from '../../src/common/redis/redis.provider';
import { addKey, createOrg, http, startApi, TestApp } from '../setup/app';

/** Idempotent answers: sealed at rest in Redis, replayable only by the credential that made them, and a concurrent
 * duplicate waits for the first answer. */
describe('Idempotency-Key', () => {
  let api: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    api = await startApi({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    redis = api.app.get(REDIS);
  });
  afterAll(() => api?.close());

  const storedValues = async () => {
    const keys = await redis.keys('idem:*');
    return keys.length ? ((await redis.mget(keys)) as string[]) : [];
  };

  it('keeps webhook secrets out of Redis in plain text and replays them only to the key that created them', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const headers = { 'idempotency-key': `hook-${org.organizationId}` };
    const body = { url: 'http://127.0.0.1:9/hook', events: ['qr.created'] };
    const first = await http(api.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body, headers });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    const rotated = await http(api.origin, 'POST', `/v1/webhooks/${first.body.id}/rotate-secret`, { key: org.apiKey, headers: { 'idempotency-key': `rot-${org.organizationId}` } });
    expect(rotated.status).toBe(200);
    for (const v of await storedValues()) {
      expect(v).not.toContain('whsec_');
      expect(v).not.toContain(first.body.id);
    }
    expect((await redis.keys('idem:*')).join(' ')).not.toContain(headers['idempotency-key']);

    const replay = await http(api.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body, headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.secret).toBe(first.body.secret);

    // A second key of the same workspace does not get the first key's answer (nor its secret).
    const second = await addKey(api, org.organizationId);
    const other = await http(api.origin, 'POST', '/v1/webhooks', { key: second.apiKey, body, headers });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(other.body.id).not.toBe(first.body.id);
    expect(other.body.secret).not.toBe(first.body.secret);
  });

  it('a concurrent duplicate waits for the first request and gets its answer', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const headers = { 'idempotency-key': 'concurrent-1' };
    const body = { target: { type: 'url', destination: 'https://example.com/once' } };
    const answers = await Promise.all([0, 1, 2].map(() => http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body, headers })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect((await http(api.origin, 'GET', '/v1/qr-codes', { key: org.apiKey })).body.data).toHaveLength(1);
  });
});
