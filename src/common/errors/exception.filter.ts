import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
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
  413: 'invalid_request',
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
    if (status === 404) message = (err as Error).message?.startsWith('Cannot ') ? `Unknown route: ${(err as Error).message.replace(/^Cannot /, '')}` : message;
    return {
      status: status === 413 || status === 415 ? 400 : status,
      body: { error: { code, message, doc_url: docUrl(code), request_id: requestId } },
    };
  }
  logger.error({ request_id: requestId, err: err instanceof Error ? { message: err.message, stack: err.stack } : err }, 'unhandled error');
  return {
    status: 500,
    body: { error: { code: 'internal_error', message: 'An unexpected error occurred. Quote the request id when reporting it.', request_id: requestId } },
  };
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
