import createClient, { type Client, defaultPathSerializer } from 'openapi-fetch';
import { ScanlinkError } from './errors';
import type { components, paths } from './schema';

type Schemas = components['schemas'];
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body an operation takes. */
export type BodyOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: infer R } ? Json<NonNullable<R>> : never;
/** The query parameters an operation takes. */
export type QueryOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** List parameters: the operation's query without `cursor` (the iterator follows the cursors); `limit` is the page size. */
export type ListParams<P extends keyof paths> = Omit<QueryOf<P, 'get' & keyof paths[P]>, 'cursor'>;

export type Account = Schemas['AccountDto'];
export type QrCode = Schemas['QrCodeDto'];
export type CreateQrCodeBody = BodyOf<'/v1/qr-codes', 'post'>;
export type UpdateQrCodeBody = BodyOf<'/v1/qr-codes/{id}', 'patch'>;
export type DeletedQrCode = Schemas['DeletedQrCodeDto'];
export type Folder = Schemas['FolderDto'];
export type Batch = Schemas['BatchDto'];
export type CreateBatchBody = BodyOf<'/v1/batches', 'post'>;
export type ScanlinkEvent = Schemas['EventDto'];
export type WebhookEndpoint = Schemas['WebhookEndpointDto'];
export type CreatedWebhookEndpoint = Schemas['CreatedWebhookEndpointDto'];
export type WebhookDelivery = Schemas['WebhookDeliveryDto'];
export type Analytics = Schemas['AnalyticsDto'];
export type Domain = Schemas['DomainDto'];
export type UploadedFile = Schemas['FileDto'];
export type Template = Schemas['TemplateDto'];
export type ApiKey = Schemas['ApiKeyDto'];
export type CreatedApiKey = Schemas['CreatedApiKeyDto'];

export const DEFAULT_BASE_URL = 'http://localhost:3000/v1';
export const SDK_VERSION = '0.1.0';

export interface ScanlinkOptions {
  /** An API key (`qr_live_…` or `qr_test_…`): every resource except `tokens`. */
  apiKey?: string;
  /** A dashboard session token (JWT): `tokens` (API key management). */
  token?: string;
  /** The API base URL, `/v1` included (the server's `API_BASE_URL`). Default `http://localhost:3000/v1`. */
  baseUrl?: string;
  /** Retries of a 429, a 503 or a network error (default 2; 0 turns retries off). Other answers are never retried. */
  maxRetries?: number;
  /** A `Retry-After` longer than this (ms, default 60,000) is not waited for: the error is thrown at once. */
  maxRetryDelayMs?: number;
  /** The fetch to use (default: globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/** A list endpoint's page. */
interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}

/** What openapi-fetch returns: the parsed body on 2xx, the parsed error otherwise. */
interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** Waits `ms`, or less when the request is cancelled meanwhile (the caller's `signal`). */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Path parameters as openapi-fetch writes them, once checked: an empty id, `.` or `..` would make another URL (dot
 * segments collapse), so that `get('')` would read the list; such an id is refused before anything is sent. */
function pathSerializer(pathname: string, pathParams: Record<string, unknown>): string {
  for (const [name, value] of Object.entries(pathParams)) {
    if (value === '' || value === '.' || value === '..' || value === undefined || value === null) {
      throw new ScanlinkError({ status: 0, code: 'invalid_request', field: name, message: `${name} must be a Scanlink id such as qr_…, not ${JSON.stringify(value ?? null)}. Nothing was sent.` });
    }
  }
  return defaultPathSerializer(pathname, pathParams);
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), or undefined. */
function retryAfterMs(res: Response | undefined): number | undefined {
  const value = res?.headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function toError(res: Response, body: unknown): ScanlinkError {
  const err = (body && typeof body === 'object' && 'error' in body ? (body as { error: Record<string, unknown> }).error : undefined) ?? {};
  const retryAfter = retryAfterMs(res);
  return new ScanlinkError({
    status: res.status,
    code: typeof err.code === 'string' ? err.code : `http_${res.status}`,
    message: typeof err.message === 'string' ? err.message : `The API answered ${res.status} ${res.statusText}`.trim(),
    field: typeof err.field === 'string' ? err.field : undefined,
    fields: Array.isArray(err.fields) ? (err.fields as string[]) : undefined,
    requestId: (typeof err.request_id === 'string' ? err.request_id : undefined) ?? res.headers.get('request-id') ?? undefined,
    retryAfter: retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
    raw: err,
  });
}

function unwrap<T>(result: Result<T>): T {
  if (result.response.ok) return result.data as T;
  throw toError(result.response, result.error);
}

/** Every item of a list endpoint, page after page (`for await (const item of …)`): one request per page, made when
 * the previous page is used up. */
export class ListIterator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield* page.data;
      if (!page.has_more || !page.next_cursor) return;
      cursor = page.next_cursor;
    }
  }

  /** Every item in an array; with `max`, only the first `max` items (pages after them are not read). */
  async toArray(max = Infinity): Promise<T[]> {
    if (!(max >= 0)) throw new RangeError('toArray(max): max must be a number ≥ 0');
    const out: T[] = [];
    if (max === 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }
}

/** A download's query, as the API documents it: `format` (`svg` default, `png`, `webp`, `pdf`), `size` (pixels,
 * 100–4000, PNG and WebP), `print_mm` (PDF: the symbol's printed width, 10–1000). */
export type DownloadParams = QueryOf<'/v1/qr-codes/{id}/download', 'get'>;

/**
 * The Scanlink API client. Every method returns the API's object (typed from its OpenAPI document) or throws
 * `ScanlinkError`; `list()` methods return an async iterable over every item of every page.
 *
 *     const scanlink = new Scanlink({ apiKey: process.env.SCANLINK_API_KEY });
 *     const code = await scanlink.qrCodes.create({ target: { type: 'url', destination: 'https://example.com' } });
 */
export class Scanlink {
  /** The generated openapi-fetch client (paths under `/v1`), with this client's authentication and retries. */
  readonly api: Client<paths>;
  private readonly apiKey: string | undefined;
  private readonly token: string | undefined;
  private readonly maxRetries: number;
  private readonly maxRetryDelayMs: number;
  private readonly fetchImpl: (request: Request) => Promise<Response>;

  constructor(options: ScanlinkOptions = {}) {
    this.apiKey = options.apiKey;
    this.token = options.token;
    this.maxRetries = options.maxRetries ?? 2;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    // A NaN (`Number(process.env.UNSET)`) would make every comparison false: retries without end, waits without limit.
    if (!Number.isInteger(this.maxRetries) || this.maxRetries < 0) throw new RangeError(`maxRetries must be a whole number ≥ 0 (got ${options.maxRetries})`);
    if (!(this.maxRetryDelayMs >= 0)) throw new RangeError(`maxRetryDelayMs must be a number ≥ 0 (got ${options.maxRetryDelayMs})`);
    this.fetchImpl = options.fetch ?? ((request) => globalThis.fetch(request));
    // The generated paths carry `/v1`; the base URL names it too (it is the API_BASE_URL), so it is taken off here.
    const baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    this.api = createClient<paths>({ baseUrl, fetch: (request) => this.send(request), pathSerializer });
  }

  /** Authentication, an Idempotency-Key per POST (the same on each retry) and retries of 429/503/network errors. */
  private async send(request: Request): Promise<Response> {
    // API key management takes the session token; everything else the API key (or the token when there is no key).
    const credential = /\/v1\/tokens(\/|\?|$)/.test(new URL(request.url).pathname) ? (this.token ?? this.apiKey) : (this.apiKey ?? this.token);
    if (!credential) {
      throw new ScanlinkError({
        status: 0,
        code: 'missing_credentials',
        message: 'No credentials: pass an API key (new Scanlink({ apiKey: "qr_live_…" })) or a dashboard session token ({ token }). Nothing was sent.',
      });
    }
    request.headers.set('authorization', `Bearer ${credential}`);
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
    for (let attempt = 0; ; attempt++) {
      let res: Response | undefined;
      let failure: unknown;
      try {
        res = await this.fetchImpl(request.clone());
      } catch (err) {
        // A request the caller cancelled (its `signal`) is not a network error: no retry, the abort is thrown as is.
        if (request.signal.aborted) throw err;
        failure = err;
      }
      const retriable = res === undefined || res.status === 429 || res.status === 503;
      const wait = retriable ? (retryAfterMs(res) ?? Math.min(8_000, 500 * 2 ** attempt) * (0.5 + Math.random() / 2)) : 0;
      if (!retriable || attempt >= this.maxRetries || wait > this.maxRetryDelayMs) {
        if (res) return res;
        throw new ScanlinkError({ status: 0, code: 'connection_error', message: `Could not reach the API at ${new URL(request.url).origin}: ${(failure as Error)?.message ?? failure}`, cause: failure });
      }
      await res?.body?.cancel().catch(() => undefined);
      await sleep(wait, request.signal);
      if (request.signal.aborted) throw request.signal.reason;
    }
  }

  /** The workspace behind the key (`GET /me`): the connection test. */
  async me(): Promise<Account> {
    return unwrap(await this.api.GET('/v1/me'));
  }

  readonly qrCodes = {
    create: async (body: CreateQrCodeBody): Promise<QrCode> => unwrap(await this.api.POST('/v1/qr-codes', { body })),
    get: async (id: string): Promise<QrCode> => unwrap(await this.api.GET('/v1/qr-codes/{id}', { params: { path: { id } } })),
    update: async (id: string, body: UpdateQrCodeBody): Promise<QrCode> => unwrap(await this.api.PATCH('/v1/qr-codes/{id}', { params: { path: { id } }, body })),
    /** Moves the code to the Trash (`restore` brings it back). */
    delete: async (id: string): Promise<DeletedQrCode> => unwrap(await this.api.DELETE('/v1/qr-codes/{id}', { params: { path: { id } } })),
    restore: async (id: string): Promise<QrCode> => unwrap(await this.api.POST('/v1/qr-codes/{id}/restore', { params: { path: { id } } })),
    list: (params: ListParams<'/v1/qr-codes'> = {}): ListIterator<QrCode> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/qr-codes', { params: { query: { ...params, cursor } } }))),
    /** The image bytes (SVG or PNG). */
    download: async (id: string, params: DownloadParams = {}): Promise<Uint8Array> =>
      new Uint8Array(unwrap(await this.api.GET('/v1/qr-codes/{id}/download', { params: { path: { id }, query: params }, parseAs: 'arrayBuffer' })) as ArrayBuffer),
  };

  readonly folders = {
    create: async (body: BodyOf<'/v1/folders', 'post'>): Promise<Folder> => unwrap(await this.api.POST('/v1/folders', { body })),
    get: async (id: string): Promise<Folder> => unwrap(await this.api.GET('/v1/folders/{id}', { params: { path: { id } } })),
    update: async (id: string, body: BodyOf<'/v1/folders/{id}', 'patch'>): Promise<Folder> => unwrap(await this.api.PATCH('/v1/folders/{id}', { params: { path: { id } }, body })),
    delete: async (id: string): Promise<Schemas['DeletedFolderDto']> => unwrap(await this.api.DELETE('/v1/folders/{id}', { params: { path: { id } } })),
    list: (params: ListParams<'/v1/folders'> = {}): ListIterator<Folder> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/folders', { params: { query: { ...params, cursor } } }))),
  };

  readonly batches = {
    /** Accepted at once (`status: processing`); `waitForCompletion` polls until every item has finished. */
    create: async (body: CreateBatchBody): Promise<Batch> => unwrap(await this.api.POST('/v1/batches', { body })),
    get: async (id: string): Promise<Batch> => unwrap(await this.api.GET('/v1/batches/{id}', { params: { path: { id } } })),
    list: (params: ListParams<'/v1/batches'> = {}): ListIterator<Batch> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/batches', { params: { query: { ...params, cursor } } }))),
    /** The ZIP of the batch's images plus manifest.csv (a batch still processing is a 422 `batch_processing`). */
    download: async (id: string, params: DownloadParams = {}): Promise<Uint8Array> =>
      new Uint8Array(unwrap(await this.api.GET('/v1/batches/{id}/download', { params: { path: { id }, query: params }, parseAs: 'arrayBuffer' })) as ArrayBuffer),
    /** Polls `get` until the batch is no longer `processing` (`completed` or `failed`); throws after `timeoutMs`. */
    waitForCompletion: async (id: string, options: { intervalMs?: number; timeoutMs?: number } = {}): Promise<Batch> => {
      const until = Date.now() + (options.timeoutMs ?? 10 * 60_000);
      for (;;) {
        const batch = await this.batches.get(id);
        if (batch.status !== 'processing') return batch;
        if (Date.now() > until) throw new Error(`Batch ${id} still processing after ${options.timeoutMs ?? 600_000} ms`);
        await sleep(options.intervalMs ?? 1000);
      }
    },
  };

  readonly templates = {
    create: async (body: BodyOf<'/v1/templates', 'post'>): Promise<Template> => unwrap(await this.api.POST('/v1/templates', { body })),
    get: async (id: string): Promise<Template> => unwrap(await this.api.GET('/v1/templates/{id}', { params: { path: { id } } })),
    update: async (id: string, body: BodyOf<'/v1/templates/{id}', 'patch'>): Promise<Template> =>
      unwrap(await this.api.PATCH('/v1/templates/{id}', { params: { path: { id } }, body })),
    delete: async (id: string): Promise<Schemas['DeletedTemplateDto']> => unwrap(await this.api.DELETE('/v1/templates/{id}', { params: { path: { id } } })),
    list: (params: ListParams<'/v1/templates'> = {}): ListIterator<Template> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/templates', { params: { query: { ...params, cursor } } }))),
  };

  readonly webhooks = {
    /** The answer carries the endpoint's `secret` (only here): keep it for `verifyWebhook`. */
    create: async (body: BodyOf<'/v1/webhooks', 'post'>): Promise<CreatedWebhookEndpoint> => unwrap(await this.api.POST('/v1/webhooks', { body })),
    get: async (id: string): Promise<WebhookEndpoint> => unwrap(await this.api.GET('/v1/webhooks/{id}', { params: { path: { id } } })),
    update: async (id: string, body: BodyOf<'/v1/webhooks/{id}', 'patch'>): Promise<WebhookEndpoint> =>
      unwrap(await this.api.PATCH('/v1/webhooks/{id}', { params: { path: { id } }, body })),
    delete: async (id: string): Promise<Schemas['DeletedWebhookEndpointDto']> => unwrap(await this.api.DELETE('/v1/webhooks/{id}', { params: { path: { id } } })),
    list: (params: ListParams<'/v1/webhooks'> = {}): ListIterator<WebhookEndpoint> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/webhooks', { params: { query: { ...params, cursor } } }))),
    /** A new secret; the previous one keeps signing for 24 hours. */
    rotateSecret: async (id: string): Promise<Schemas['WebhookSecretDto']> => unwrap(await this.api.POST('/v1/webhooks/{id}/rotate-secret', { params: { path: { id } } })),
    /** Sends a `ping` through the real delivery pipeline and returns its delivery record. */
    test: async (id: string): Promise<WebhookDelivery> => unwrap(await this.api.POST('/v1/webhooks/{id}/test', { params: { path: { id } } })),
    deliveries: (id: string, params: Omit<QueryOf<'/v1/webhooks/{id}/deliveries', 'get'>, 'cursor'> = {}): ListIterator<WebhookDelivery> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/webhooks/{id}/deliveries', { params: { path: { id }, query: { ...params, cursor } } }))),
  };

  readonly events = {
    get: async (id: string): Promise<ScanlinkEvent> => unwrap(await this.api.GET('/v1/events/{id}', { params: { path: { id } } })),
    list: (params: ListParams<'/v1/events'> = {}): ListIterator<ScanlinkEvent> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/events', { params: { query: { ...params, cursor } } }))),
  };

  readonly domains = {
    create: async (body: BodyOf<'/v1/domains', 'post'>): Promise<Domain> => unwrap(await this.api.POST('/v1/domains', { body })),
    get: async (id: string): Promise<Domain> => unwrap(await this.api.GET('/v1/domains/{id}', { params: { path: { id } } })),
    update: async (id: string, body: BodyOf<'/v1/domains/{id}', 'patch'>): Promise<Domain> => unwrap(await this.api.PATCH('/v1/domains/{id}', { params: { path: { id } }, body })),
    delete: async (id: string): Promise<Schemas['DeletedDomainDto']> => unwrap(await this.api.DELETE('/v1/domains/{id}', { params: { path: { id } } })),
    list: (params: ListParams<'/v1/domains'> = {}): ListIterator<Domain> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/domains', { params: { query: { ...params, cursor } } }))),
    /** Checks the domain's DNS record now. */
    verify: async (id: string): Promise<Domain> => unwrap(await this.api.POST('/v1/domains/{id}/verify', { params: { path: { id } } })),
  };

  readonly files = {
    /** Uploads a file (multipart); its type is sniffed from the bytes. */
    create: async (file: Blob | Uint8Array, filename = 'file'): Promise<UploadedFile> => {
      const form = new FormData();
      form.append('file', file instanceof Blob ? file : new Blob([file]), filename);
      return unwrap(await this.api.POST('/v1/files', { body: form as never, bodySerializer: (b: unknown) => b as FormData }));
    },
    get: async (id: string): Promise<UploadedFile> => unwrap(await this.api.GET('/v1/files/{id}', { params: { path: { id } } })),
    delete: async (id: string): Promise<Schemas['DeletedFileDto']> => unwrap(await this.api.DELETE('/v1/files/{id}', { params: { path: { id } } })),
    list: (params: ListParams<'/v1/files'> = {}): ListIterator<UploadedFile> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/files', { params: { query: { ...params, cursor } } }))),
  };

  readonly analytics = {
    /** Scan analytics of a dynamic code; `from`/`to` are inclusive UTC days (`YYYY-MM-DD`). */
    get: async (qrCodeId: string, params: QueryOf<'/v1/qr-codes/{id}/analytics', 'get'> = {}): Promise<Analytics> =>
      unwrap(await this.api.GET('/v1/qr-codes/{id}/analytics', { params: { path: { id: qrCodeId }, query: params } })),
  };

  /** API key management: needs a dashboard session token (`new Scanlink({ token })`), not an API key. */
  readonly tokens = {
    /** The answer carries the full `key`, once. */
    create: async (body: BodyOf<'/v1/tokens', 'post'>): Promise<CreatedApiKey> => unwrap(await this.api.POST('/v1/tokens', { body })),
    list: (params: ListParams<'/v1/tokens'> = {}): ListIterator<ApiKey> =>
      new ListIterator(async (cursor) => unwrap(await this.api.GET('/v1/tokens', { params: { query: { ...params, cursor } } }))),
    /** Revokes the key. */
    delete: async (id: string): Promise<ApiKey> => unwrap(await this.api.DELETE('/v1/tokens/{id}', { params: { path: { id } } })),
    rotate: async (keyId: string): Promise<CreatedApiKey> => unwrap(await this.api.POST('/v1/tokens/rotate', { body: { key_id: keyId } })),
  };
}
