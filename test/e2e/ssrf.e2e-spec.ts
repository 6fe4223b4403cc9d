import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { createOrg, http, startApi, TestApp, TestOrg } from '../setup/app';

/** Server-side fetches (logos, webhooks): IPv4-compatible IPv6 literals are judged by their IPv4 address, and an
 * allow-list entry that names a port exempts that port only. */
describe('SSRF refusals', () => {
  let server: Server;
  let port: number;
  let api: TestApp;
  let org: TestOrg;

  beforeAll(async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000000' } }).png().toBuffer();
    server = createServer((req, res) => {
      if (req.url === '/logo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(200).end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    api = await startApi({ LOGO_ALLOW_HOSTS: `127.0.0.1:${port}`, WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${port}` });
    org = await createOrg(api, { plan: 'pro' });
  });
  afterAll(async () => {
    await api?.close();
    await new Promise((r) => server.close(r));
  });

  const logo = (url: string) =>
    http(api.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { type: 'static', target: { type: 'text', text: 'x' }, design: { logo: { url } } } });
  const webhook = (url: string) => http(api.origin, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url, events: ['qr.created'] } });

  it('refuses IPv4-compatible IPv6 literals for loopback and the metadata address', async () => {
    for (const url of ['https://[::127.0.0.1]/hook', 'https://[::a9fe:a9fe]/hook', 'https://[::7f00:1]:8443/hook', 'https://[::ffff:127.0.0.1]/hook']) {
      const res = await webhook(url);
      expect([url, res.status, res.body.error?.field]).toEqual([url, 400, 'url']);
    }
    const res = await logo(`http://[::127.0.0.1]:${port}/logo.png`);
    expect([res.status, res.body.error.field]).toEqual([400, 'design.logo.url']);
  });

  it('limits an allow-listed development host to the port its entry names', async () => {
    expect((await logo(`http://127.0.0.1:${port}/logo.png`)).status).toBe(201);
    const otherPort = Number(new URL(api.origin).port);
    const elsewhere = await logo(`http://127.0.0.1:${otherPort}/logo.png`);
    expect([elsewhere.status, elsewhere.body.error.field]).toEqual([400, 'design.logo.url']);
    expect((await logo(`http://127.0.0.1:6379/`)).status).toBe(400);

    expect((await webhook(`http://127.0.0.1:${port}/hook`)).status).toBe(201);
    const hookElsewhere = await webhook(`http://127.0.0.1:${otherPort}/hook`);
    expect([hookElsewhere.status, hookElsewhere.body.error.field]).toEqual([400, 'url']);
  });
});
