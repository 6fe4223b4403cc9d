import { REDIS } from '../../src/common/redis/redis.provider';
import { createOrg, db, http, startApi, TestApp, writePlans } from '../setup/app';

describe('API foundation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApi();
  });
  afterAll(async () => {
    await t.close();
  });

  describe('GET /v1/me', () => {
    it('returns the account behind the key', async () => {
      const org = await createOrg(t, { plan: 'pro', scopes: ['qr:read'], environment: 'test' });
      const res = await http(t.origin, 'GET', '/v1/me', { key: org.apiKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        object: 'account',
        organization_id: org.organizationId,
        organization_name: 'Test workspace',
        plan: 'pro',
        key_prefix: org.apiKey.slice(0, 12),
        scopes: ['qr:read'],
        environment: 'test',
        usage: { storage_bytes: 0, files: 0 },
      });
      expect(res.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{16,}$/);
      expect(res.headers.get('scanlink-version')).toBe('2026-02-08');
      expect(res.headers.get('ratelimit-limit')).toBe('100000');
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(100000);
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    });

    it('answers 401 without a key', async () => {
      const res = await http(t.origin, 'GET', '/v1/me');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.body.error.message).toMatch(/Missing API key/);
      expect(res.body.error.request_id).toBe(res.headers.get('request-id'));
    });

    it('answers 401 for a malformed Authorization header and a malformed key', async () => {
      // A header that is there but not "Bearer <key>" is malformed, not missing (the message says which).
      for (const authorization of ['Basic Zm9vOmJhcg==', `Bearer  qr_live_${'A'.repeat(32)}`, 'Token abc']) {
        const res = await http(t.origin, 'GET', '/v1/me', { headers: { authorization } });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('unauthorized');
        expect(res.body.error.message).toBe('Malformed Authorization header: expected "Bearer <API key>"');
      }
      const short = await http(t.origin, 'GET', '/v1/me', { key: 'qr_live_short' });
      expect(short.status).toBe(401);
      expect(short.body.error.message).toMatch(/Malformed API key/);
    });

    it('answers 401 for an unknown key', async () => {
      const res = await http(t.origin, 'GET', '/v1/me', { key: `qr_live_${'A'.repeat(32)}` });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe('Unknown API key');
    });

    it('answers 401 for an expired key', async () => {
      const org = await createOrg(t, { expiresInDays: 0 });
      const res = await http(t.origin, 'GET', '/v1/me', { key: org.apiKey });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toMatch(/expired/);
    });

    it('answers 401 for a revoked key', async () => {
      const org = await createOrg(t);
      await db(t).execute('update api_keys set revoked_at = now() where id = ?', [org.keyId]);
      const res = await http(t.origin, 'GET', '/v1/me', { key: org.apiKey });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toMatch(/revoked/);
    });

    it('does not accept a key in the query string', async () => {
      const org = await createOrg(t);
      const res = await http(t.origin, 'GET', `/v1/me?access_token=${org.apiKey}`);
      expect(res.status).toBe(401);
    });
  });

  describe('rate limits', () => {
    it('answers 429 rate_limited past the per-minute limit, with RateLimit-* and Retry-After', async () => {
      const limited = await startApi({ PLANS_FILE: writePlans({ pro: { requests_per_minute: 3 } }) });
      try {
        const org = await createOrg(limited, { plan: 'pro' });
        const statuses: number[] = [];
        let last;
        for (let i = 0; i < 4; i++) {
          last = await http(limited.origin, 'GET', '/v1/me', { key: org.apiKey });
          statuses.push(last.status);
        }
        expect(statuses).toEqual([200, 200, 200, 429]);
        expect(last!.body.error.code).toBe('rate_limited');
        expect(last!.headers.get('ratelimit-limit')).toBe('3');
        expect(last!.headers.get('ratelimit-remaining')).toBe('0');
        expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
        const other = await createOrg(limited, { plan: 'pro' });
        expect((await http(limited.origin, 'GET', '/v1/me', { key: other.apiKey })).status).toBe(200);
      } finally {
        await limited.close();
      }
    });

    it('answers 429 quota_exceeded when the free plan’s monthly requests are used up', async () => {
      const limited = await startApi({ PLANS_FILE: writePlans({ free: { monthly_requests: 2, requests_per_minute: 100 } }) });
      try {
        const org = await createOrg(limited, { plan: 'free' });
        await http(limited.origin, 'GET', '/v1/me', { key: org.apiKey });
        await http(limited.origin, 'GET', '/v1/me', { key: org.apiKey });
        const res = await http(limited.origin, 'GET', '/v1/me', { key: org.apiKey });
        expect(res.status).toBe(429);
        expect(res.body.error).toMatchObject({ code: 'quota_exceeded', limit: 2, current_count: 2, requested: 1, plan_id: 'free' });
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      } finally {
        await limited.close();
      }
    });

    it('does not count requests refused by the per-minute limit against the monthly quota', async () => {
      const limited = await startApi({ PLANS_FILE: writePlans({ free: { monthly_requests: 3, requests_per_minute: 2 } }) });
      try {
        const org = await createOrg(limited, { plan: 'free' });
        const codes: string[] = [];
        for (let i = 0; i < 4; i++) {
          const r = await http(limited.origin, 'GET', '/v1/me', { key: org.apiKey });
          codes.push(r.status === 200 ? 'ok' : r.body.error.code);
        }
        expect(codes).toEqual(['ok', 'ok', 'rate_limited', 'rate_limited']);
        // Only the two answered requests used the quota.
        const redis = limited.app.get<import('ioredis').Redis>(REDIS);
        const month = new Date();
        expect(await redis.get(`quota:${org.organizationId}:${month.getUTCFullYear()}-${month.getUTCMonth() + 1}`)).toBe('2');
      } finally {
        await limited.close();
      }
    });

    it('sends RateLimit-* on every response, including 401, unknown routes and /health', async () => {
      for (const [method, path] of [['GET', '/v1/me'], ['GET', '/v1/no-such-thing'], ['GET', '/health']] as const) {
        const res = await http(t.origin, method, path);
        expect(res.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
        expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
        expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
      }
    });
  });

  describe('scopes and plans', () => {
    it('answers 403 insufficient_scope naming the scope', async () => {
      const org = await createOrg(t, { scopes: ['qr:read'] });
      const res = await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: 'x' } });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('insufficient_scope');
      expect(res.body.error.message).toContain("'qr:write'");
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same body and refuses a different body', async () => {
      const org = await createOrg(t);
      const headers = { 'idempotency-key': 'create-folder-1' };
      const first = await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: 'Once' }, headers });
      const again = await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: 'Once' }, headers });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      const list = await http(t.origin, 'GET', '/v1/folders', { key: org.apiKey });
      expect(list.body.data).toHaveLength(1);
      // The same parameters in another key order are the same request.
      const code = { name: 'Ordered', target: { type: 'url', destination: 'https://example.com/o' } };
      const codeHeaders = { 'idempotency-key': 'create-code-1' };
      const made = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, rawBody: JSON.stringify(code), headers: codeHeaders });
      const reordered = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, rawBody: JSON.stringify({ target: { destination: code.target.destination, type: 'url' }, name: code.name }), headers: codeHeaders });
      expect([made.status, reordered.status, reordered.headers.get('idempotent-replayed'), reordered.body.id]).toEqual([201, 201, 'true', made.body.id]);
      // A blank name is no name.
      const blank = await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: '   ' } });
      expect([blank.status, blank.body.error?.field]).toEqual([400, 'name']);
      const conflict = await http(t.origin, 'POST', '/v1/folders', { key: org.apiKey, body: { name: 'Twice' }, headers });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe('idempotency_conflict');
    });
  });

  describe('errors', () => {
    it('answers an unknown route with a 404 envelope', async () => {
      const org = await createOrg(t);
      const res = await http(t.origin, 'GET', '/v1/no-such-thing', { key: org.apiKey });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(res.body.error.request_id).toMatch(/^req_/);
    });

    it('answers null for a non-nullable field with 400 naming it, never 500', async () => {
      const org = await createOrg(t);
      const created = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com/n' } } });
      expect(created.status).toBe(201);
      for (const [field, body] of [['name', { name: null }], ['is_active', { is_active: null }], ['target', { target: null }], ['tags', { tags: null }]] as const) {
        const res = await http(t.origin, 'PATCH', `/v1/qr-codes/${created.body.id}`, { key: org.apiKey, body });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_request', field });
      }
      const wrongType = await http(t.origin, 'PATCH', `/v1/qr-codes/${created.body.id}`, { key: org.apiKey, body: { name: 5 } });
      expect(wrongType.body.error).toMatchObject({ field: 'name', message: 'name must be a string' });
      const unfiled = await http(t.origin, 'PATCH', `/v1/qr-codes/${created.body.id}`, { key: org.apiKey, body: { folder_id: null } });
      expect(unfiled.status).toBe(200);
      const create = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { name: null, target: { type: 'url', destination: 'https://example.com/n' } } });
      expect(create.status).toBe(400);
      expect(create.body.error.field).toBe('name');
    });

    it('takes an empty body with Content-Type: application/json as no body, and refuses fields on endpoints without one', async () => {
      const org = await createOrg(t);
      const created = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com/e' } } });
      const id = created.body.id as string;
      expect((await http(t.origin, 'DELETE', `/v1/qr-codes/${id}`, { rawBody: '' })).status).toBe(401);
      const del = await http(t.origin, 'DELETE', `/v1/qr-codes/${id}`, { key: org.apiKey, rawBody: '' });
      expect(del.status).toBe(200);
      expect(del.body).toMatchObject({ id, deleted: true });
      const extra = await http(t.origin, 'POST', `/v1/qr-codes/${id}/restore`, { key: org.apiKey, body: { x: 1 } });
      expect(extra.status).toBe(400);
      expect(extra.body.error).toMatchObject({ code: 'invalid_request', field: 'x' });
      const restored = await http(t.origin, 'POST', `/v1/qr-codes/${id}/restore`, { key: org.apiKey, rawBody: '' });
      expect(restored.status).toBe(200);
      expect(restored.body).toMatchObject({ id, object: 'qr_code' });
      expect((await http(t.origin, 'GET', `/v1/qr-codes/${id}`, { key: org.apiKey })).status).toBe(200);
      // A create or a content replacement with an empty body is a create with `{}`: the answer names what is missing.
      for (const [path, fieldName] of [
        ['/v1/qr-codes', 'target'],
        ['/v1/folders', 'name'],
      ] as const) {
        const empty = await http(t.origin, 'POST', path, { key: org.apiKey, rawBody: '' });
        const none = await http(t.origin, 'POST', path, { key: org.apiKey, body: {} });
        expect([path, empty.status, empty.body.error.field]).toEqual([path, 400, fieldName]);
        expect(empty.body.error.message).toBe(none.body.error.message);
      }
      const page = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'linkpage', title: 'T', links: [{ title: 'A', url: 'https://example.com/a' }] } } });
      const content = await http(t.origin, 'PUT', `/v1/qr-codes/${page.body.id as string}/content`, { key: org.apiKey, rawBody: '' });
      expect([content.status, content.body.error.field]).toEqual([400, 'title']);
    });

    it('answers malformed JSON with 400 invalid_request', async () => {
      const org = await createOrg(t);
      const res = await http(t.origin, 'POST', '/v1/me', { key: org.apiKey, rawBody: '{"name": ' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.message).toMatch(/JSON/);
    });
  });

  describe('health and docs', () => {
    it('reports Postgres and Redis on /health', async () => {
      const res = await http(t.origin, 'GET', '/health');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok' } });
    });

    it('serves the OpenAPI document with /v1 paths, the bearer scheme and the error envelope', async () => {
      const res = await http(t.origin, 'GET', '/docs/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.info.version).toBe('2026-02-08');
      expect(Object.keys(res.body.paths)).toContain('/v1/me');
      expect(res.body.components.securitySchemes.api_key).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(res.body.components.schemas.ErrorEnvelopeDto).toBeDefined();
      expect(res.body.paths['/v1/me'].get.responses['401'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/ErrorEnvelopeDto',
      );
      expect(res.body.components.securitySchemes.api_key.bearerFormat).not.toBe('JWT');
      expect(Object.keys(res.body.paths['/v1/qr-codes/{id}'].patch.responses)).toEqual(expect.arrayContaining(['409', '422']));
      expect(res.body.paths['/v1/qr-codes/{id}/analytics'].get.responses['422']).toBeDefined();
      expect(res.body.paths['/v1/batches/{id}/download'].get.responses['422']).toBeDefined();
      const limit = res.body.paths['/v1/qr-codes'].get.parameters.find((p: { name: string }) => p.name === 'limit');
      expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    });

    it('serves Swagger UI at /docs', async () => {
      const res = await http(t.origin, 'GET', '/docs');
      expect(res.status).toBe(200);
      expect(res.text).toMatch(/swagger/i);
    });
  });
});
