import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { STRICT_TRANSPORT_SECURITY } from '../../common/http/client-address';
import { writeRedirect } from './redirect-head';

const LOCATION = 'https://example.com/spring?ref=poster&utm_source=qr';
const VERSION = '2026-02-08';

/** `/raw…` answers through writeRedirect, `/node…` through writeHead with the same headers; `…/https` adds HSTS. */
function handler(req: IncomingMessage, res: ServerResponse): void {
  const https = req.url!.endsWith('/https');
  if (req.url!.startsWith('/raw')) return writeRedirect(res, LOCATION, 'req_0123456789abcdefghijkl', VERSION, https);
  const head = ['Location', LOCATION, 'Cache-Control', 'no-store', 'Content-Length', '0', 'X-Content-Type-Options', 'nosniff', 'Referrer-Policy', 'strict-origin-when-cross-origin', 'Request-Id', 'req_0123456789abcdefghijkl', 'Scanlink-Version', VERSION];
  if (https) head.push('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  res.writeHead(302, head);
  res.end();
}

/** Sends `requests` (raw text) on one connection; resolves with every byte the server sent and whether it closed the
 * connection, once `answers` heads arrived and the server closed or stayed quiet for 150 ms. */
function exchange(server: Server, requests: string, answers: number): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let text = '';
    let closed = false;
    let quiet: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(quiet);
      socket.destroy();
      resolve({ text: text.replace(/^Date: .*\r\n/gm, 'Date: <now>\r\n'), closed });
    };
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.split('\r\n\r\n').length - 1 >= answers) {
        clearTimeout(quiet);
        quiet = setTimeout(finish, 150);
      }
    });
    socket.on('end', () => {
      closed = true;
      finish();
    });
    socket.write(requests);
  });
}

async function listening(configure: (s: Server) => void = () => undefined): Promise<Server> {
  const server = createServer(handler);
  configure(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

/** The same exchange through both ways: the bytes (Date aside) and the connection's fate must be equal. */
async function same(server: Server, request: (path: string) => string, answers = 1): Promise<{ text: string; closed: boolean }> {
  const raw = await exchange(server, request('/raw'), answers);
  const node = await exchange(server, request('/node'), answers);
  expect(raw).toEqual(node);
  return raw;
}

describe('writeRedirect: the same bytes as writeHead', () => {
  let server: Server;
  afterEach(() => new Promise<void>((r) => server.close(() => r())));

  it('on a keep-alive HTTP/1.1 connection: Keep-Alive with the server timeout, the connection stays open', async () => {
    server = await listening();
    const { text, closed } = await same(server, (p) => `GET ${p} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect(text).toBe(
      'HTTP/1.1 302 Found\r\nLocation: https://example.com/spring?ref=poster&utm_source=qr\r\nCache-Control: no-store\r\nContent-Length: 0\r\n' +
        'X-Content-Type-Options: nosniff\r\nReferrer-Policy: strict-origin-when-cross-origin\r\nRequest-Id: req_0123456789abcdefghijkl\r\n' +
        'Scanlink-Version: 2026-02-08\r\nDate: <now>\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n',
    );
    expect(closed).toBe(false);
  });

  it('with HSTS, over a request that asks to close, and over HTTP/1.0 with and without keep-alive', async () => {
    server = await listening();
    expect((await same(server, (p) => `GET ${p}/https HTTP/1.1\r\nHost: a\r\n\r\n`)).text).toContain(`Strict-Transport-Security: ${STRICT_TRANSPORT_SECURITY}\r\n`);
    const close = await same(server, (p) => `GET ${p} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
    expect(close.text).toContain('Connection: close\r\n');
    expect(close.closed).toBe(true);
    expect((await same(server, (p) => `GET ${p} HTTP/1.0\r\nHost: a\r\n\r\n`)).closed).toBe(true);
    expect((await same(server, (p) => `GET ${p} HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n`)).closed).toBe(false);
  });

  it('for HEAD, Expect: 100-continue, pipelined requests, and when the server limits requests per connection or keeps no timeout', async () => {
    server = await listening();
    await same(server, (p) => `HEAD ${p} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect((await same(server, (p) => `GET ${p} HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n`)).text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 302 Found/);
    const pipelined = await same(server, (p) => `GET ${p} HTTP/1.1\r\nHost: a\r\n\r\nGET ${p}/https HTTP/1.1\r\nHost: a\r\n\r\n`, 2);
    expect(pipelined.text.match(/HTTP\/1\.1 302 Found/g)).toHaveLength(2);
    await new Promise<void>((r) => server.close(() => r()));

    server = await listening((s) => (s.maxRequestsPerSocket = 2));
    const limited = await same(server, (p) => `GET ${p} HTTP/1.1\r\nHost: a\r\n\r\n`.repeat(2), 2);
    expect(limited.text).toContain('Keep-Alive: timeout=5, max=2\r\n');
    expect(limited.text).toContain('Connection: close\r\n');
    await new Promise<void>((r) => server.close(() => r()));

    server = await listening((s) => (s.keepAliveTimeout = 0));
    expect((await same(server, (p) => `GET ${p} HTTP/1.1\r\nHost: a\r\n\r\n`)).text).not.toContain('Keep-Alive');
  });

  it('never writes a Location holding a line break: writeHead refuses it, the caller answers 500', async () => {
    server = createServer((req, res) => {
      try {
        writeRedirect(res, 'https://example.com/\r\nSet-Cookie: a=b', 'req_x', VERSION, false);
      } catch {
        res.writeHead(500, { 'Content-Length': '0' });
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { text } = await exchange(server, 'GET / HTTP/1.1\r\nHost: a\r\n\r\n', 1);
    expect(text).toMatch(/^HTTP\/1\.1 500 /);
    expect(text).not.toContain('Set-Cookie');
  });

  it('falls back to writeHead when a header was already set', async () => {
    server = createServer((req, res) => {
      res.setHeader('X-Before', '1');
      writeRedirect(res, LOCATION, 'req_x', VERSION, false);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { text } = await exchange(server, 'GET / HTTP/1.1\r\nHost: a\r\n\r\n', 1);
    expect(text).toContain('X-Before: 1\r\n');
    expect(text).toContain(`Location: ${LOCATION}\r\n`);
  });
});
