import { request } from 'node:http';
import { startApi, startScan, TestApp } from '../setup/app';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request (fetch would refuse or re-encode these URLs and headers). */
function raw(origin: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const u = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Errors Fastify or Node's HTTP parser answer before routing use the envelope and carry Request-Id, on both HTTP
 * processes. */
describe('every error in the envelope', () => {
  let api: TestApp;
  let scan: TestApp;
  beforeAll(async () => {
    api = await startApi();
    scan = await startScan();
  });
  afterAll(async () => {
    await api?.close();
    await scan?.close();
  });

  const expectEnvelope = (res: Raw, status: number, what: string) => {
    expect([what, res.status]).toEqual([what, status]);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.request_id).toMatch(/^req_/);
    expect(res.headers['request-id']).toBe(body.error.request_id);
    // The headers every answer of both hosts carries, errors before routing included.
    expect([what, res.headers['x-content-type-options'], res.headers['referrer-policy'], res.headers['cache-control']]).toEqual([
      what,
      'nosniff',
      'strict-origin-when-cross-origin',
      'no-store',
    ]);
  };

  it('malformed percent-encoding, over-long path parameters and oversized URLs', async () => {
    for (const origin of [api.origin, scan.origin]) {
      const prefix = origin === api.origin ? '/v1/qr-codes' : '/images';
      expectEnvelope(await raw(origin, `${prefix}/%E0%A4%A`), 400, `${origin} bad encoding`);
      expectEnvelope(await raw(origin, `${prefix}/${'a'.repeat(200)}`), 414, `${origin} long parameter`);
      expectEnvelope(await raw(origin, `/x?y=${'a'.repeat(100_000)}`), 431, `${origin} long URL`);
    }
    expectEnvelope(await raw(scan.origin, '/abcdefg/%E0%A4%A'), 400, 'scan host, sub-path with bad encoding');
    // On the api, the answers made before routing carry the caller's anonymous rate-limit window like every other.
    for (const path of ['/v1/qr-codes/%E0%A4%A', `/v1/qr-codes/${'a'.repeat(200)}`]) {
      const res = await raw(api.origin, path);
      expect([path, res.headers['ratelimit-limit'], res.headers['ratelimit-reset']]).toEqual([path, expect.stringMatching(/^\d+$/), expect.stringMatching(/^\d+$/)]);
      expect(res.headers['ratelimit-remaining']).toMatch(/^\d+$/);
    }
  });

  it('one Cache-Control on answers that set none themselves: JSON, errors, health, the API reference', async () => {
    for (const [origin, path] of [
      [api.origin, '/health'],
      [api.origin, '/health/ready'],
      [api.origin, '/v1/me'],
      [api.origin, '/docs/openapi.json'],
      [api.origin, '/docs/errors'],
      [scan.origin, '/health'],
      [scan.origin, '/images/nothing-here.png'],
    ]) {
      const res = await raw(origin, path);
      expect([origin, path, res.headers['cache-control'], res.headers['x-content-type-options']]).toEqual([origin, path, 'no-store', 'nosniff']);
    }
  });

  it('oversized headers', async () => {
    for (const origin of [api.origin, scan.origin]) {
      expectEnvelope(await raw(origin, '/health', { 'x-big': 'a'.repeat(20_000) }), 431, `${origin} big header`);
    }
  });
});
