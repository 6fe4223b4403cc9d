import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { assertMatchesOpenApi } from '../setup/openapi-check';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { createOrg, http, startApi, TestApp } from '../setup/app';
import { spawnProcess } from '../setup/processes';

const ROOT = join(__dirname, '..', '..');

/** The operator CLI from source, as `npm run -s cli` runs it compiled. */
function cli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const bin = [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', 'cli.ts')];
  return spawnSync(process.execPath, [...bin, ...args], { env: { ...env, LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 60_000 });
}

describe('operator CLI for people', () => {
  it('--help prints plain-text usage and exits 0', () => {
    const r = cli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Scanlink operator CLI\n/);
    expect(r.stdout).toContain('org:create --name N');
  });

  it('an unknown command says so and lists the commands (JSON on stdout stays)', () => {
    const r = cli(['org:delete']);
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/Unknown command 'org:delete'\. Commands:\n {2}org:create/);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: 'usage', commands: expect.arrayContaining(['org:create', 'trash:empty']) });
  });

  it('without databases it says to start npm run local or set DATABASE_URL / REDIS_URL', () => {
    const env = { ...process.env };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    const r = cli(['org:create', '--name', 'x', '--plan', 'pro', '--email', 'a@b.test'], env);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/start `npm run local`.*or set DATABASE_URL and REDIS_URL/);
    expect(r.stderr).not.toMatch(/Invalid configuration/);
    expect(JSON.parse(r.stdout).error.code).toBe('no_database');
  });
});

/** What a new user meets in the first hour: the api's front door, its document, and the messages that guide them. */
describe('first hour', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApi();
  });
  afterAll(async () => {
    await t.close();
  });

  it('GET / points at the documentation', async () => {
    const res = await http(t.origin, 'GET', '/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'api', docs: expect.stringMatching(/\/docs$/), openapi: expect.stringMatching(/\/docs\/openapi\.json$/) });
  });

  it('doc_url points at the error reference the api serves itself', async () => {
    const res = await http(t.origin, 'GET', '/v1/me');
    expect(res.body.error.doc_url).toBe('http://localhost:3000/docs/errors#unauthorized');
    const page = await http(t.origin, 'GET', '/docs/errors');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('<a id="unauthorized"></a>');
  });

  it('a known path with another method is 405 with Allow, not 404', async () => {
    const org = await createOrg(t);
    const res = await http(t.origin, 'PUT', '/v1/qr-codes', { key: org.apiKey, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(res.body.error.code).toBe('method_not_allowed');
    const item = await http(t.origin, 'PUT', '/v1/qr-codes/qr_123', { key: org.apiKey, body: {} });
    expect(item.status).toBe(405);
    expect(item.headers.get('allow')).toBe('DELETE, GET, HEAD, PATCH');
    expect((await http(t.origin, 'GET', '/v1/no-such-thing', { key: org.apiKey })).status).toBe(404);
    // A fixed path under a parameter's place (`/qr-codes/preview` beside `/qr-codes/{id}`) answers for itself.
    for (const [method, path, allow] of [
      ['GET', '/v1/qr-codes/preview', 'POST'],
      ['PUT', '/v1/qr-codes/preview', 'POST'],
      ['DELETE', '/v1/trash/empty', 'POST'],
      ['DELETE', '/v1/tokens/rotate', 'POST'],
    ]) {
      // fetch, not http(): http() checks answers against the operation the path template names (GET …/{id}).
      const res = await fetch(`${t.origin}${path}`, { method, headers: { authorization: `Bearer ${org.apiKey}` } });
      const code = ((await res.json()) as { error?: { code?: string } }).error?.code;
      expect({ path, method, status: res.status, allow: res.headers.get('allow'), code }).toEqual({ path, method, status: 405, allow, code: 'method_not_allowed' });
    }
  });

  it('the OpenAPI document declares security, headers, Idempotency-Key and the design schema, and no GS1', async () => {
    const doc = (await http(t.origin, 'GET', '/docs/openapi.json')).body;
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.info.license).toEqual({ name: 'MIT', url: 'https://opensource.org/license/mit' });
    expect(JSON.stringify(doc.info)).not.toMatch(/GS1/);
    const create = doc.paths['/v1/qr-codes'].post;
    expect(create.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(Object.keys(create.responses['201'].headers)).toEqual(expect.arrayContaining(['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
    expect(create.description).toMatch(/Wi-Fi/);
    expect(doc.paths['/v1/events'].get.description).toMatch(/empty until a webhook endpoint subscribes/);
    const design = doc.components.schemas.DesignDto;
    expect(Object.keys(design.properties)).toEqual(['error_correction', 'colors', 'gradient', 'shapes', 'eye_colors', 'logo', 'transparent_background', 'frame']);
    expect(doc.components.schemas.CreateQrCodeDto.properties.folder_id).toMatchObject({ type: 'string', nullable: true });
  });

  it('the response check refuses a body that contradicts the document', async () => {
    await expect(assertMatchesOpenApi(t.origin, 'GET', '/v1/me', 200, { object: 'account' })).rejects.toThrow(/does not match the document/);
    await expect(assertMatchesOpenApi(t.origin, 'GET', '/v1/me', 418, {})).rejects.toThrow(/a status the document does not list/);
    const me = await http(t.origin, 'GET', '/v1/me', { key: (await createOrg(t)).apiKey });
    await expect(assertMatchesOpenApi(t.origin, 'GET', '/v1/me', 200, { ...me.body, undocumented: 1 })).rejects.toThrow(/unevaluated properties 'undocumented'/);
  });

  it('refusing a local webhook receiver names the setting that allows it in development', async () => {
    const org = await createOrg(t);
    for (const url of ['http://localhost:9999/hook', 'https://127.0.0.1/hook']) {
      const res = await http(t.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url, events: ['*'] } });
      expect(res.status).toBe(400);
      expect(res.body.error.field).toBe('url');
      expect(res.body.error.message).toMatch(/WEBHOOK_ALLOW_HOSTS/);
    }
  });

  it('the document and its key scheme say where the key comes from and that Swagger UI adds "Bearer " itself', async () => {
    const doc = (await http(t.origin, 'GET', '/docs/openapi.json')).body;
    for (const text of [doc.info.description, doc.components.securitySchemes.api_key.description]) {
      expect(text).toContain('npm run local');
      expect(text).toContain('org:create');
      expect(text).toMatch(/paste the key alone: Swagger UI (adds|sends) `(Authorization: )?Bearer /i);
    }
    expect(doc.info.description).toContain('docker compose exec api node dist/src/cli.js org:create');
  });

  it('"Bearer Bearer <key>" (the key pasted with its scheme into Swagger UI) is a 401 that says Bearer is doubled', async () => {
    const org = await createOrg(t);
    for (const authorization of [`Bearer Bearer ${org.apiKey}`, `bearer  BEARER ${org.apiKey}`, 'Bearer Bearer']) {
      const res = await http(t.origin, 'GET', '/v1/me', { headers: { authorization } });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
      expect(res.body.error.message).toMatch(/says "Bearer" twice/);
      expect(res.body.error.message).toContain('paste the key alone');
    }
    // Other bad headers keep their own messages.
    const malformed = await http(t.origin, 'GET', '/v1/me', { headers: { authorization: `Token ${org.apiKey}` } });
    expect(malformed.body.error.message).not.toMatch(/twice/);
    expect((await http(t.origin, 'GET', '/v1/me', { key: org.apiKey })).status).toBe(200);
  });
});

/** The api's access log as an operator reads it: one JSON line per request, error answers with their envelope code. */
describe('access lines of error answers', () => {
  it('carry the error code, including codes with digits (409 gs1_identifier_taken) and the doubled-Bearer 401', async () => {
    const t = await startApi();
    const api = await spawnProcess('api', { LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    try {
      const org = await createOrg(t, { plan: 'pro' });
      const body = { type: 'gs1', primary_key: { ai: '01', value: randomGtin() }, destination: 'https://brand.example/product' };
      expect((await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body })).status).toBe(201);
      const taken = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body });
      expect(taken.status).toBe(409);
      const conflictKey = { 'idempotency-key': `first-hour-${Date.now()}` };
      const named = (name: string) => ({ target: { type: 'url', destination: 'https://example.com' }, name });
      expect((await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: named('a'), headers: conflictKey })).status).toBe(201);
      const conflict = await http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: named('b'), headers: conflictKey });
      expect(conflict.status).toBe(409);
      const doubled = await http(api.origin, 'GET', '/v1/me', { headers: { authorization: `Bearer Bearer ${org.apiKey}` } });
      expect(doubled.status).toBe(401);
      const lineOf = (requestId: string | null) =>
        api
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.request_id === requestId && 'status' in l);
      await new Promise((r) => setTimeout(r, 200)); // the access line is written once the answer has gone
      expect(lineOf(taken.headers.get('request-id'))).toMatchObject({ status: 409, code: 'gs1_identifier_taken', path: '/v1/qr-codes' });
      expect(lineOf(conflict.headers.get('request-id'))).toMatchObject({ status: 409, code: 'idempotency_conflict' });
      expect(lineOf(doubled.headers.get('request-id'))).toMatchObject({ status: 401, code: 'unauthorized' });
      expect(api.output()).not.toContain(org.apiKey);
    } finally {
      await api.stop();
      await t.close();
    }
  });
});
