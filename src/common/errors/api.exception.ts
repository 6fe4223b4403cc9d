import { ERROR_STATUS, ErrorCode } from './error-codes';

export interface ErrorExtras {
  field?: string;
  fields?: string[];
  gs1_code?: string;
  limit?: number;
  current_count?: number;
  /** what is used now, in the limit's unit (storage quotas: bytes or files) */
  current?: number;
  requested?: number;
  plan_id?: string;
  /** seconds; sent as the Retry-After header, not in the body */
  retryAfter?: number;
}

/** Retry-After (seconds) on 503 answers: long enough for a Redis or PostgreSQL failover, short enough to retry soon. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The one exception type of the service: the global filter turns it into the error envelope. */
export class ApiException extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: ErrorExtras = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  static invalid(field: string | undefined, message: string, fields?: string[]): ApiException {
    return new ApiException('invalid_request', message, { field, fields: fields ?? (field ? [field] : undefined) });
  }

  /** 503 `service_unavailable`: a dependency is down; nothing was written, the client should retry. */
  static unavailable(what: string, retryAfter = UNAVAILABLE_RETRY_AFTER_SECONDS): ApiException {
    return new ApiException('service_unavailable', `${what} is temporarily unavailable; nothing was changed. Retry in a few seconds.`, { retryAfter });
  }

  /** 504 `query_timeout`: PostgreSQL stopped a statement at the server's statement_timeout (nothing was written). */
  static queryTimeout(): ApiException {
    return new ApiException(
      'query_timeout',
      'The request took longer than the server allows and was stopped; nothing was changed. Narrow it (a shorter range, fewer codes or filters) or retry later.',
    );
  }

  static notFound(what = 'resource', id?: string): ApiException {
    return new ApiException('not_found', id ? `No such ${what}: '${id}'` : `No such ${what}`);
  }
}
