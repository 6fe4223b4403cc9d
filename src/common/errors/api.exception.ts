import { ERROR_STATUS, ErrorCode } from './error-codes';

export interface ErrorExtras {
  field?: string;
  fields?: string[];
  gs1_code?: string;
  limit?: number;
  current_count?: number;
  requested?: number;
  plan_id?: string;
  /** seconds; sent as the Retry-After header, not in the body */
  retryAfter?: number;
}

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

  static notFound(what = 'resource', id?: string): ApiException {
    return new ApiException('not_found', id ? `No such ${what}: '${id}'` : `No such ${what}`);
  }
}
