import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConnectionException } from '@mikro-orm/core';
import { describeError } from '../logging/safe-error';
import { ApiException } from './api.exception';
import { docUrl, ErrorCode } from './error-codes';

interface Envelope {
  error: Record<string, unknown> & { code: string; message: string; request_id: string };
}

const HTTP_STATUS_CODES: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'invalid_request',
  429: 'rate_limited',
};

/** Turns any thrown value into the error envelope. Also used by the Fastify error handler for errors raised before Nest
 * routes a request (malformed JSON, body too large). */
export function toEnvelope(err: unknown, requestId: string, logger: Logger): { status: number; body: Envelope; retryAfter?: number } {
  if (err instanceof ApiException) {
    const { retryAfter, ...extras } = err.extras;
    const body: Envelope = {
      error: {
        code: err.code,
        message: err.message,
        ...Object.fromEntries(Object.entries(extras).filter(([, v]) => v !== undefined)),
        doc_url: docUrl(err.code),
        request_id: requestId,
      },
    };
    return { status: err.status, body, retryAfter };
  }
  const status = err instanceof HttpException ? err.getStatus() : (err as { statusCode?: number })?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code: ErrorCode = HTTP_STATUS_CODES[status] ?? 'invalid_request';
    const fastifyCode = (err as { code?: string }).code;
    let message = (err as Error).message || 'Invalid request';
    if (fastifyCode === 'FST_ERR_CTP_INVALID_JSON' || (err instanceof SyntaxError)) message = `Malformed JSON body: ${message}`;
    if (fastifyCode === 'FST_ERR_CTP_EMPTY_JSON_BODY') message = 'Body must not be empty when Content-Type is application/json';
    if (status === 415) message = 'Unsupported Content-Type: request bodies are JSON (Content-Type: application/json); file uploads are multipart/form-data';
    if (status === 413) message = 'The request body is larger than the limit (2 MB); nothing was read';
    if (status === 404) message = (err as Error).message?.startsWith('Cannot ') ? `Unknown route: ${(err as Error).message.replace(/^Cannot /, '')}` : message;
    return {
      status: status === 415 ? 400 : status,
      body: { error: { code, message, doc_url: docUrl(code), request_id: requestId } },
    };
  }
  if (isQueryCanceled(err)) {
    logger.warn({ request_id: requestId, ...describeError(err), stack: undefined }, 'statement timeout');
    return toEnvelope(ApiException.queryTimeout(), requestId, logger);
  }
  if (isDependencyDown(err)) {
    logger.warn({ request_id: requestId, ...describeError(err), stack: undefined }, 'dependency unavailable');
    return toEnvelope(ApiException.unavailable('A backing service'), requestId, logger);
  }
  // Class, code, constraint and request id only: a driver error's message carries the statement and its values.
  logger.error({ request_id: requestId, ...describeError(err) }, 'unhandled error');
  return {
    status: 500,
    body: { error: { code: 'internal_error', message: 'An unexpected error occurred. Quote the request id when reporting it.', request_id: requestId } },
  };
}

/** Redis or PostgreSQL unreachable: ioredis gives up on a command (retries exhausted, connection closed, offline),
 * Bull cannot reach its Redis, or MikroORM cannot connect. Answered 503 `service_unavailable` with Retry-After. */
export function isDependencyDown(err: unknown): boolean {
  if (err instanceof ConnectionException) return true;
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  const { code, sqlState } = err as { code?: unknown; sqlState?: unknown };
  if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  // PostgreSQL going away or not there yet: class 08 (connection exception), 57P01–57P03 (admin or crash shutdown,
  // "the database system is starting up": a restart or failover), 53300 (too many connections). MikroORM wraps the
  // driver's error and keeps its SQLSTATE as `code` and `sqlState`.
  const state = typeof sqlState === 'string' ? sqlState : typeof code === 'string' ? code : '';
  if (/^08[0-9A-Z]{3}$/.test(state) || ['57P01', '57P02', '57P03', '53300'].includes(state)) return true;
  if (err.cause && err.cause !== err && isDependencyDown(err.cause)) return true;
  // Knex prefixes the statement to the driver's message: "select … - Connection terminated unexpectedly".
  return /^(Connection is closed|Stream isn't writeable|Reached the max retries per request limit)/.test(err.message) || /Connection terminated (unexpectedly|due to connection timeout)/.test(err.message);
}

/** PostgreSQL's query_canceled (57014): statement_timeout fired, or the api cancelled the statement of a client that
 * left (that answer reaches nobody). */
export function isQueryCanceled(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as { code?: unknown; sqlState?: unknown };
  return e.code === '57014' || e.sqlState === '57014';
}

@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<FastifyRequest>();
    const reply = ctx.getResponse<FastifyReply>();
    const { status, body, retryAfter } = toEnvelope(exception, String(request.id), this.logger);
    if (retryAfter !== undefined) void reply.header('Retry-After', String(retryAfter));
    void reply.status(status).header('Content-Type', 'application/json; charset=utf-8').send(body);
  }
}
