/** The API's error envelope: `{"error": {"code", "message", "field"?, "fields"?, "request_id", …}}` (docs/errors.md). */
export interface ErrorEnvelope {
  error: { code: string; message: string; field?: string; fields?: string[]; request_id?: string; [k: string]: unknown };
}

/** Any failed call: an API error (status > 0, `code` from the envelope) or a network failure (status 0, code `network_error`). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field?: string;
  readonly fields: string[];
  readonly requestId?: string;
  /** Milliseconds to wait before retrying (the `Retry-After` header of a 429 or 503). */
  readonly retryAfterMs?: number;
  readonly body?: ErrorEnvelope['error'];

  constructor(init: { status: number; code: string; message: string; field?: string; fields?: string[]; requestId?: string; retryAfterMs?: number; body?: ErrorEnvelope['error'] }) {
    super(init.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.fields = init.fields ?? (init.field ? [init.field] : []);
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
  }

  /** Worth a Retry button: the network failed, the API is rate limiting (429) or a dependency is down (503). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status === 503;
  }
}

/** `Retry-After` (seconds or an HTTP date) in milliseconds. */
export function retryAfterMs(res: Response): number | undefined {
  const v = res.headers.get('retry-after');
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export function toApiError(res: Response, body: unknown): ApiError {
  const e = (body && typeof body === 'object' && 'error' in body ? (body as ErrorEnvelope).error : undefined) ?? undefined;
  return new ApiError({
    status: res.status,
    code: e?.code ?? (res.status === 503 ? 'service_unavailable' : 'http_error'),
    message: e?.message ?? `The server answered ${res.status}`,
    field: e?.field,
    fields: e?.fields,
    requestId: e?.request_id ?? res.headers.get('request-id') ?? undefined,
    retryAfterMs: retryAfterMs(res),
    body: e,
  });
}

export function networkError(cause: unknown): ApiError {
  return new ApiError({ status: 0, code: 'network_error', message: `The API could not be reached (${cause instanceof Error ? cause.message : String(cause)}). Check your connection and retry.` });
}

export function asApiError(err: unknown): ApiError {
  return err instanceof ApiError ? err : networkError(err);
}

/**
 * Maps an error onto a form: `{fields: {name: message}, general}`. The API names the offending field in `field` (and
 * all of them in `fields`) with dotted paths (`target.destination`, `design.colors.foreground`). A form lists the names
 * it shows (`known`); an error naming a field inside a known one (`target.wifi.ssid` → `target.wifi`) lands on the
 * closest known parent; one naming no known field is `general` (shown above the form).
 */
export function fieldErrors(err: unknown, known: readonly string[]): { fields: Record<string, string>; general?: string } {
  const e = asApiError(err);
  const out: Record<string, string> = {};
  for (const f of e.fields.length ? e.fields : e.field ? [e.field] : []) {
    const match = closestField(f, known);
    if (match && !out[match]) out[match] = e.message;
  }
  return Object.keys(out).length ? { fields: out } : { fields: {}, general: e.message };
}

function closestField(path: string, known: readonly string[]): string | undefined {
  const normalized = path.replace(/\[(\d+)\]/g, '.$1');
  for (let p = normalized; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') {
    if (known.includes(p)) return p;
  }
  return undefined;
}
