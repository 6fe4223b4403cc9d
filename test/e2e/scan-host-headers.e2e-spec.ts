import { connect } from 'node:net';
import { createCode, createOrg, startApi, startScan, TestApp } from '../setup/app';
import { requestWithHost } from '../setup/domains';

/** Raw HTTP/1.1 to the scan host (a test must be able to send two Host headers, which no client library does). */
function raw(origin: string, head: string): Promise<{ status: number; text: string }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(`${head}\r\nConnection: close\r\n\r\n`));
    let data = '';
    socket.on('data', (c: Buffer) => (data += c.toString('latin1')));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0), text: data }));
    socket.on('error', reject);
  });
}

/** Host handling on the scan host (docs/scan-host.md; issue 25 item 8). */
describe('scan host: Host header handling', () => {
  let api: TestApp;
  let scan: TestApp;
  let shortCode: string;

  beforeAll(async () => {
    [api, scan] = await Promise.all([startApi(), startScan()]);
    const code = await createCode(api, await createOrg(api, { plan: 'pro' }), { target: { type: 'url', destination: 'https://example.com/host' } });
    shortCode = code.short_code;
  });
  afterAll(async () => {
    await Promise.all([scan?.close(), api?.close()]);
  });

  it('answers a normal Host (with or without a port) as before', async () => {
    const host = new URL(scan.origin).host;
    expect((await requestWithHost(scan.origin, 'GET', `/${shortCode}`, host)).status).toBe(302);
    expect((await requestWithHost(scan.origin, 'GET', `/${shortCode}`, 'localhost')).status).toBe(302);
  });

  it('answers 400 to two Host headers instead of routing by the first', async () => {
    const host = new URL(scan.origin).host;
    const res = await raw(scan.origin, `GET /${shortCode} HTTP/1.1\r\nHost: ${host}\r\nHost: go.attacker.example`);
    expect(res.status).toBe(400);
    expect(res.text).not.toMatch(/^Location:/im);
    // Nest's routes on the scan host too.
    expect((await raw(scan.origin, `GET /health/live HTTP/1.1\r\nHost: ${host}\r\nHost: ${host}`)).status).toBe(400);
  });

  it('answers 400 to a malformed port or name, whatever the path (never cached by its raw value)', async () => {
    for (const host of [`localhost:${'9'.repeat(8000)}`, 'localhost:99999', 'localhost:', 'localhost:80x', 'a b.example']) {
      const res = await requestWithHost(scan.origin, 'GET', `/${shortCode}`, host);
      expect(res.status).toBe(400);
      expect(res.headers['request-id']).toMatch(/^req_/);
      expect((await requestWithHost(scan.origin, 'GET', '/01/09506000134352', host)).status).toBe(400);
    }
  });
});
