/** An answer of the API other than 2xx (or a request that could not be sent): the API's error envelope, flattened. */
export class ScanlinkError extends Error {
  override readonly name: string = 'ScanlinkError';
  /** HTTP status; 0 when no answer arrived (network error after the retries, or nothing was sent). */
  readonly status: number;
  /** `error.code` of the envelope (`invalid_request`, `not_found`, `plan_limit_reached`, …); `connection_error`
   * when no answer arrived, `missing_credentials` when the client has no key or token. */
  readonly code: string;
  /** The offending field, when the API names one (`target.destination`, `tags[1]`). */
  readonly field?: string;
  readonly fields?: string[];
  /** `Request-Id` of the answer (quote it when reporting a problem). */
  readonly requestId?: string;
  /** Seconds, from `Retry-After` (429 and 503). */
  readonly retryAfter?: number;
  /** The whole `error` object of the envelope (`limit`, `current_count`, `gs1_code`, `doc_url`, …). */
  readonly raw: Record<string, unknown>;

  constructor(init: { status: number; code: string; message: string; field?: string; fields?: string[]; requestId?: string; retryAfter?: number; raw?: Record<string, unknown>; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.fields = init.fields;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.raw = init.raw ?? {};
  }
}

/** Why `verifyWebhook` refused a delivery. */
export type SignatureFailure = 'missing_header' | 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch' | 'invalid_body';

/**
 * `verifyWebhook` refused a delivery. `reason` tells the cases apart: `signature_mismatch` is a wrong secret or a
 * tampered body (they cannot be told apart from the outside: the body is signed with the secret), and
 * `timestamp_out_of_tolerance` a replay or a clock far off. Answer such a request with 400 and do not act on it.
 */
export class ScanlinkSignatureError extends Error {
  override readonly name: string = 'ScanlinkSignatureError';
  constructor(
    readonly reason: SignatureFailure,
    message: string,
  ) {
    super(message);
  }
}
