import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** the raw body, exactly as received */
  body: string;
  at: number;
}

export interface ReceiverReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** A webhook receiver on 127.0.0.1 for tests and the benchmark: records every request, answers per `reply`. */
export class TestReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Decides the answer; by default 200 "ok". Receives the request and how many came to the same path before. */
  reply: (req: ReceivedRequest, countForPath: number) => ReceiverReply | Promise<ReceiverReply> = () => ({ status: 200, body: 'ok' });
  onRequest?: (req: ReceivedRequest) => void;
  private server!: Server;
  private readonly perPath = new Map<string, number>();
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const rec: ReceivedRequest = { method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.requests.push(rec);
        this.onRequest?.(rec);
        const n = this.perPath.get(path) ?? 0;
        this.perPath.set(path, n + 1);
        Promise.resolve(this.reply(rec, n))
          .then((r) => {
            res.writeHead(r.status, { 'content-type': 'text/plain', ...(r.headers ?? {}) });
            res.end(r.body ?? '');
          })
          .catch(() => {
            res.writeHead(500);
            res.end();
          });
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path = '/hook', host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  forPath(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `check` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000, everyMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
