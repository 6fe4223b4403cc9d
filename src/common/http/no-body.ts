import { CallHandler, ExecutionContext, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { ApiException } from '../errors/api.exception';

/** Refuses a body on an endpoint that takes none (docs/api.md: unknown body fields → 400), after authentication and
 * scope checks. An absent or empty body (`{}`, or nothing with Content-Type: application/json) is fine. */
@Injectable()
export class NoBodyInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const body: unknown = context.switchToHttp().getRequest<{ body?: unknown }>().body;
    if (body !== undefined && body !== null && body !== '') {
      const keys = typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : null;
      if (keys === null) throw ApiException.invalid('body', 'This endpoint takes no request body');
      if (keys.length > 0) throw ApiException.invalid(keys[0], `Unknown field '${keys[0]}': this endpoint takes no request body`, keys);
    }
    return next.handle();
  }
}

/** The endpoint takes no request body. */
export const NoBody = (): MethodDecorator & ClassDecorator => UseInterceptors(NoBodyInterceptor);
