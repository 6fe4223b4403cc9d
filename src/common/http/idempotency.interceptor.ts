import { CallHandler, ExecutionContext, HttpStatus, Inject, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { from, Observable, of, throwError } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { AUTH_PROPERTY, AuthContext } from '../auth/auth-context';
import { ApiException } from '../errors/api.exception';
import { REDIS } from '../redis/redis.provider';

const TTL_SECONDS = 24 * 3600;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

interface Stored {
  state: 'pending' | 'done';
  fingerprint: string;
  status?: number;
  body?: unknown;
}

/** `Idempotency-Key` on POST (docs/api.md): the first response is kept 24 h per workspace and key; a retry with the
 * same body gets it again (with `Idempotent-Replayed: true`), a different body gets 409 idempotency_conflict. Results
 * of 5xx errors are not kept, so such a request can be retried. */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest & Record<string, unknown>>();
    const header = req.headers['idempotency-key'];
    const auth = req[AUTH_PROPERTY] as AuthContext | undefined;
    if (req.method !== 'POST' || header === undefined || !auth) return next.handle();
    const key = Array.isArray(header) ? header[0] : header;
    if (!KEY_PATTERN.test(key)) {
      return throwError(() => ApiException.invalid('Idempotency-Key', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters'));
    }
    const reply = http.getResponse<FastifyReply>();
    const redisKey = `idem:${auth.organizationId}:${key}`;
    const fingerprint = createHash('sha256').update(`${req.method} ${req.url.split('?')[0]}\n${JSON.stringify(req.body ?? null)}`).digest('hex');
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;

    return from(this.redis.set(redisKey, JSON.stringify({ state: 'pending', fingerprint } satisfies Stored), 'EX', TTL_SECONDS, 'NX')).pipe(
      mergeMap((acquired) => {
        if (acquired) {
          return next.handle().pipe(
            mergeMap((body) =>
              from(this.redis.set(redisKey, JSON.stringify({ state: 'done', fingerprint, status, body } satisfies Stored), 'EX', TTL_SECONDS)).pipe(
                mergeMap(() => of(body)),
              ),
            ),
            catchError((err: unknown) => {
              const keep = err instanceof ApiException && err.status < 500;
              const save = keep
                ? this.redis.set(redisKey, JSON.stringify({ state: 'done', fingerprint, status: err.status, body: { error: { code: err.code, message: err.message, extras: err.extras } } } satisfies Stored), 'EX', TTL_SECONDS)
                : this.redis.del(redisKey);
              return from(save).pipe(mergeMap(() => throwError(() => err)));
            }),
          );
        }
        return from(this.redis.get(redisKey)).pipe(
          mergeMap((raw) => {
            const stored = raw ? (JSON.parse(raw) as Stored) : null;
            if (!stored) return next.handle();
            if (stored.fingerprint !== fingerprint) {
              throw new ApiException('idempotency_conflict', 'This Idempotency-Key was already used with a different request');
            }
            if (stored.state === 'pending') {
              throw new ApiException('idempotency_conflict', 'A request with this Idempotency-Key is still being processed; retry later');
            }
            void reply.header('Idempotent-Replayed', 'true');
            const body = stored.body as { error?: { code: string; message: string; extras?: object } } | undefined;
            if (stored.status && stored.status >= 400 && body?.error) {
              throw new ApiException(body.error.code as never, body.error.message, body.error.extras ?? {});
            }
            void reply.status(stored.status ?? status);
            return of(stored.body);
          }),
        );
      }),
    );
  }
}
