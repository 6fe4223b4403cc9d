import { connect } from 'node:net';
import { createCode, createOrg, startApi, startScan, TestApp, TestOrg } from '../setup/app';
import { pdf, upload } from '../setup/files';

/** Shutting down (SIGTERM, a rolling deploy): a keep-alive connection whose response was still being written when
 * close() began is ended once that response is done, not kept open for its 72 s keep-alive timeout. */
describe('graceful close', () => {
  let api: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    api = await startApi();
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('finishes a file download in flight, then closes its keep-alive connection and stops within seconds', async () => {
    const scan = await startScan();
    const big = Buffer.concat([pdf('large'), Buffer.alloc(8 * 1024 * 1024, 0x20)]);
    const file = await upload(api, org, { filename: 'large.pdf', body: big });
    expect(file.status).toBe(201);
    const code = await createCode(api, org, { target: { type: 'file', file_id: file.body.id } });

    // A keep-alive client that reads the first bytes, then stops reading: the server cannot finish the response.
    const { port } = new URL(scan.origin);
    const socket = connect(Number(port), '127.0.0.1');
    socket.write(`GET /${code.short_code}/file HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`);
    let received = 0;
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('data', (chunk: Buffer) => ((received += chunk.length), resolve())));
    socket.pause();
    expect(received).toBeLessThan(big.length);

    const started = Date.now();
    const closed = scan.close();
    await new Promise((r) => setTimeout(r, 300));
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.resume();
    await closed;
    await ended;
    expect(received).toBeGreaterThan(big.length);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);
});
