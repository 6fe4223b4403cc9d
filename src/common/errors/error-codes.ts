/** Every `error.code` the API can answer with, and its HTTP status (docs/errors.md). */
export const ERROR_STATUS = {
  invalid_request: 400,
  payload_too_large: 400,
  gs1_invalid: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  insufficient_scope: 403,
  forbidden: 403,
  plan_restricted: 403,
  plan_limit_reached: 403,
  gs1_prefix_not_granted: 403,
  not_found: 404,
  method_not_allowed: 405,
  target_not_editable: 409,
  idempotency_conflict: 409,
  gs1_identifier_taken: 409,
  gs1_identifier_retired: 409,
  domain_taken: 409,
  domain_in_use: 409,
  file_in_use: 409,
  last_owner: 409,
  domain_not_verified: 422,
  domain_id_immutable: 422,
  gs1_identifier_immutable: 422,
  static_code_not_supported: 422,
  rules_not_supported: 422,
  batch_processing: 422,
  code_not_editable: 422,
  file_too_large: 413,
  rate_limited: 429,
  quota_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
  query_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

let docsErrorsUrl = 'http://localhost:3000/docs/errors';

/** DOCS_BASE_URL: set once at start-up by each process (config.docsBaseUrl). */
export function setDocsBaseUrl(base: string): void {
  docsErrorsUrl = `${base.replace(/\/+$/, '')}/errors`;
}

/** `doc_url` of an error: the code's section of the error reference (docs/errors.md, served by the api at /docs/errors). */
export function docUrl(code: string): string {
  return `${docsErrorsUrl}#${code}`;
}
