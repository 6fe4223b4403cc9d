import type { FastifyReply } from 'fastify';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs `work` in a read transaction of its own whose statements PostgreSQL stops after `timeoutMs` (statement_timeout,
 * `set local`: the connection goes back to the pool with the api's own limit), and that is cancelled
 * (pg_cancel_backend, from another pooled connection) when `signal` aborts: a client that left no longer keeps its
 * query running. Either way the statement fails with query_canceled (57014), answered 504 `query_timeout`.
 * `timeoutMs` 0 keeps the connection's limit (the api's statement_timeout).
 */
export async function boundedRead<T>(em: EntityManager, timeoutMs: number, signal: AbortSignal | undefined, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  if (signal?.aborted) throw Object.assign(new Error('The client left before the query started'), { code: '57014' });
  return em.fork().transactional(async (tx) => {
    // One round trip for both: set_config(…, true) is SET LOCAL.
    const limit = timeoutMs > 0 ? `set_config('statement_timeout', '${Math.floor(timeoutMs)}', true), ` : '';
    if (!signal) {
      if (limit) await tx.execute(`select ${limit}1`);
      return work(tx);
    }
    const [{ pid }] = await tx.execute<{ pid: number }[]>(`select ${limit}pg_backend_pid() as pid`);
    let cancelling: Promise<unknown> | null = null;
    const cancel = (): void => {
      cancelling = em
        .getConnection()
        .execute('select pg_cancel_backend(?)', [pid])
        .catch(() => undefined);
    };
    signal.addEventListener('abort', cancel, { once: true });
    try {
      return await work(tx);
    } finally {
      signal.removeEventListener('abort', cancel);
      // The cancel must land while this transaction still holds the connection, never on a later borrower's statement.
      if (cancelling) await cancelling;
    }
  });
}

/** An AbortSignal that aborts when the client of `reply` goes away before its response is complete. */
export function clientGone(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort();
  });
  return ac.signal;
}
