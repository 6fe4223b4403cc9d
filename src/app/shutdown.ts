import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bull';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Queue } from 'bull';
import { QUEUES } from '../common/queue/queues';

/** How long a stopping process waits for in-flight requests and jobs (docs/operations.md "Shutdown"). */
export const DRAIN_MS = 25_000;

const logger = new Logger('Shutdown');

/** Resolves with true when `work` settles before `until`, false when the time is up first (the work goes on). */
async function within(work: Promise<unknown>, until: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, until - Date.now()))));
  try {
    return await Promise.race([work.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * SIGTERM for one process, in this order:
 * 1. The HTTP server stops accepting connections; requests in flight finish, idle keep-alive connections are closed,
 *    busy ones after their current answer.
 * 2. The worker (`queues`) stops taking Bull jobs and waits for the running ones (Queue#close waits for them).
 *    Steps 1 and 2 share DRAIN_MS; what is still running then is left to the sweepers of the other workers.
 * 3. app.close(): every shutdown hook, with the ORM and Redis still open until the end: the scan host writes the
 *    scans it counted to the stream (ScanBuffer), the scan-stream consumer finishes the entries it is storing.
 */
export async function closeGracefully(app: NestFastifyApplication, opts: { queues?: boolean } = {}): Promise<void> {
  const until = Date.now() + DRAIN_MS;
  // Requests still arriving on open keep-alive connections (the scan host's hot path answers them before Fastify sees
  // them) get their answer with `Connection: close`, so every connection ends after its current request.
  const server = app.getHttpServer() as Server;
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    res.shouldKeepAlive = false;
  });
  // A connection whose request was in flight when the close began turns idle after its answer: closed then too.
  const reaper = setInterval(() => server.closeIdleConnections(), 100);
  const drained = await within(app.getHttpAdapter().close(), until);
  clearInterval(reaper);
  if (!drained) logger.warn(`requests still in flight after ${DRAIN_MS / 1000} s; closing anyway`);
  if (opts.queues) {
    const queues = Object.values(QUEUES).map((name) => app.get<Queue>(getQueueToken(name), { strict: false }));
    if (!(await within(Promise.all(queues.map((q) => q.close())), until))) logger.warn(`jobs still running after ${DRAIN_MS / 1000} s; closing anyway`);
  }
  await app.close();
}
