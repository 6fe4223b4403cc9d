import { getQueueToken } from '@nestjs/bull';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Queue } from 'bull';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sameSecret } from '../common/crypto/same-secret';
import { docUrl } from '../common/errors/error-codes';
import { QUEUES } from '../common/queue/queues';
import { RateLimiter } from '../common/http/rate-limiter';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True when a state-changing request comes from another site: `Sec-Fetch-Site` other than same-origin (or none: typed
 * by the user), or an `Origin` other than the board's own. Browsers send at least one of them on cross-site posts, so
 * a page elsewhere cannot make a logged-in operator's browser retry or clean jobs (cached Basic credentials). */
export function crossSiteWrite(req: Pick<FastifyRequest, 'method' | 'headers' | 'protocol'>): boolean {
  if (!STATE_CHANGING.has(req.method)) return false;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  return origin !== `${req.protocol}://${req.headers.host ?? ''}`;
}

export const QUEUE_BOARD_PATH = '/admin/queues';

/** HTTP Basic with any user name and the token as password (compared in constant time). */
export function basicPasswordMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Basic +([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && sameSecret(decoded.slice(colon + 1), token);
}

/**
 * Bull Board (the queue dashboard) at /admin/queues on the api, only when ADMIN_TOKEN is set (otherwise the path is
 * an ordinary 404). Every request under it, pages and the board's own JSON API alike, needs HTTP Basic with the token
 * as password; state-changing requests from other sites are refused (403), and an address with 10 wrong passwords in a
 * minute waits for the next minute (429). Call before app.init().
 */
export async function mountQueueBoard(app: NestFastifyApplication, adminToken: string | undefined): Promise<void> {
  if (!adminToken) return;
  // Loaded only when the dashboard is on: a deployment without it does not pay for its modules at start-up.
  const [{ createBullBoard }, { BullAdapter }, { FastifyAdapter: BullBoardFastifyAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullAdapter'),
    import('@bull-board/fastify'),
  ]);
  const queues = Object.values(QUEUES).map((name) => new BullAdapter(app.get<Queue>(getQueueToken(name), { strict: false })));
  const board = new BullBoardFastifyAdapter();
  createBullBoard({ queues, serverAdapter: board, options: { uiConfig: { boardTitle: 'Scanlink queues' } } });
  board.setBasePath(QUEUE_BOARD_PATH);
  const fastify = app.getHttpAdapter().getInstance();
  const limiter = app.get(RateLimiter, { strict: false });
  await fastify.register(
    async (scope) => {
      scope.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
        const id = String(req.id);
        const refuse = (status: number, code: string, message: string, retryAfter?: number) => {
          if (retryAfter !== undefined) void reply.header('Retry-After', String(retryAfter));
          return reply
            .code(status)
            .header('Content-Type', 'application/json; charset=utf-8')
            .send(JSON.stringify({ error: { code, message, doc_url: docUrl(code), request_id: id } }));
        };
        if (crossSiteWrite(req)) return refuse(403, 'forbidden', 'The queue dashboard refuses state-changing requests from other sites (Origin / Sec-Fetch-Site)');
        const blockedFor = await limiter.adminLoginBlockedFor(req.ip);
        if (blockedFor > 0) return refuse(429, 'rate_limited', 'Too many failed logins to the queue dashboard from this address; try again later', blockedFor);
        if (basicPasswordMatches(req.headers.authorization, adminToken)) return;
        // A wrong password counts against the address; no credentials at all (the browser's first request) does not.
        if (req.headers.authorization !== undefined) await limiter.countFailedAdminLogin(req.ip);
        const message = 'The queue dashboard needs HTTP Basic authentication: any user name, ADMIN_TOKEN as password';
        return reply
          .code(401)
          .header('WWW-Authenticate', 'Basic realm="Scanlink queues", charset="UTF-8"')
          .header('Content-Type', 'application/json; charset=utf-8')
          .send(JSON.stringify({ error: { code: 'unauthorized', message, doc_url: docUrl('unauthorized'), request_id: id } }));
      });
      await scope.register(board.registerPlugin());
    },
    { prefix: QUEUE_BOARD_PATH },
  );
}
