import { CallHandler, ExecutionContext, HttpStatus, Inject, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { createHash } from 'node:crypto';
import stableStringify from 'safe-stable-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { from, Observable, of, throwError } from 'rxjs';
import { catchError, mergeMap } from 'rxjs/operators';
import { AUTH_PROPERTY, AuthContext, DASHBOARD_SESSION_PROPERTY } from '../auth/auth-context';
import { APP_CONFIG, AppConfig } from '../config/config';
import { SecretBox } from '../crypto/secret-box';
import { ApiException } from '../errors/api.exception';
import { REDIS } from '../redis/redis.provider';

const TTL_SECONDS = 24 * 3600;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** How long a concurrent duplicate waits for the first request's answer before giving up with a 409. */
const WAIT_FOR_FIRST_MS = 30_000;
const POLL_MS = 50;

const NO_IDEMPOTENCY = 'scanlink:no-idempotency';

/** A POST route that ignores `Idempotency-Key` (the MCP endpoint: it writes its own reply, and JSON-RPC has ids). */
export const WithoutIdempotency = () => SetMetadata(NO_IDEMPOTENCY, true);

interface Stored {
  state: 'pending' | 'done';
  fingerprint: string;
  status?: number;
  body?: unknown;
}

/**
 * `Idempotency-Key` on POST: the first response is kept 24 h for the credential that made it (one API key, or one
 * dashboard user of a workspace) and that key; a retry with the same body gets it again (`Idempotent-Replayed: true`),
 * a different body gets 409 idempotency_conflict, and a duplicate sent while the first is running waits for its
 * answer. Results of 5xx errors are not kept, so such a request can be retried.
 *
 * Stored answers can hold secrets (`whsec_…`, a new API key), so the Redis value is sealed with AES-256-GCM under a
 * key derived from APP_SECRET, bound (as associated data) to its Redis key; the Redis key names the credential by id
 * and the client's key only by its SHA-256. While Redis is down a request with the header is answered 503 (nothing
 * is done), since its retry could not be recognised.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly box: SecretBox;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly reflector: Reflector,
  ) {
    this.box = new SecretBox(config.appSecret, 'idempotent-responses');
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest & Record<string, unknown>>();
    const header = req.headers['idempotency-key'];
    const owner = credentialOf(req);
    if (req.method !== 'POST' || header === undefined || !owner) return next.handle();
    if (this.reflector.get<boolean | undefined>(NO_IDEMPOTENCY, context.getHandler())) return next.handle();
    const key = Array.isArray(header) ? header[0] : header;
    if (!KEY_PATTERN.test(key)) {
      return throwError(() => ApiException.invalid('Idempotency-Key', 'The Idempotency-Key header must be 1 to 255 printable ASCII characters'));
    }
    if (this.redis.status !== 'ready') return throwError(() => ApiException.unavailable('Idempotent request handling'));
    const reply = http.getResponse<FastifyReply>();
    const redisKey = `idem:${owner}:${createHash('sha256').update(key).digest('hex')}`;
    // The parameters, not the bytes: the same body with its keys in another order is the same request (stable JSON).
    const fingerprint = createHash('sha256').update(`${req.method} ${req.url.split('?')[0]}\n${stableStringify(req.body ?? null)}`).digest('hex');
    const status = this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ?? HttpStatus.CREATED;
    const save = (value: Stored) => this.redis.set(redisKey, this.box.seal(JSON.stringify(value), redisKey), 'EX', TTL_SECONDS);

    return from(this.redis.set(redisKey, this.box.seal(JSON.stringify({ state: 'pending', fingerprint } satisfies Stored), redisKey), 'EX', TTL_SECONDS, 'NX')).pipe(
      mergeMap((acquired) => {
        if (acquired) {
          return next.handle().pipe(
            mergeMap((body) => from(save({ state: 'done', fingerprint, status, body })).pipe(mergeMap(() => of(body)))),
            catchError((err: unknown) => {
              const keep = err instanceof ApiException && err.status < 500;
              const done = keep
                ? save({ state: 'done', fingerprint, status: err.status, body: { error: { code: err.code, message: err.message, extras: err.extras } } })
                : this.redis.del(redisKey);
              return from(done.catch(() => undefined)).pipe(mergeMap(() => throwError(() => err)));
            }),
          );
        }
        return from(this.settled(redisKey)).pipe(
          mergeMap((stored) => {
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

  /** The stored record once it is no longer pending (a concurrent duplicate waits for the first request), or the
   * pending record after WAIT_FOR_FIRST_MS, or null when it vanished (the first failed with a 5xx). */
  private async settled(redisKey: string): Promise<Stored | null> {
    const until = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const raw = await this.redis.get(redisKey);
      const stored = raw ? this.unseal(raw, redisKey) : null;
      if (!stored || stored.state === 'done' || Date.now() >= until) return stored;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  private unseal(raw: string, redisKey: string): Stored | null {
    try {
      return JSON.parse(this.box.open(raw, redisKey)) as Stored;
    } catch {
      return null; // written under another APP_SECRET or tampered with: treated as absent
    }
  }
}

/** The credential a stored answer belongs to: the API key's id, or the dashboard user within the workspace. */
function credentialOf(req: Record<string, unknown>): string | undefined {
  const auth = req[AUTH_PROPERTY] as AuthContext | undefined;
  if (auth) return `key:${auth.keyId}`;
  const session = req[DASHBOARD_SESSION_PROPERTY] as { organizationId: string; userId: string } | undefined;
  if (session) return `user:${session.organizationId}:${createHash('sha256').update(session.userId).digest('hex').slice(0, 32)}`;
  return undefined;
}
