import createClient from 'openapi-fetch';
import type { components, paths } from '../../../sdk/src/schema';
import { ApiError, networkError, toApiError } from './errors';
import { fromSessionAnswer, getSession, setSession } from './session';

export type { paths };
export type Schemas = components['schemas'];

/** Where the app sends people whose session cannot be refreshed (the router listens; see main.tsx). */
let onSignedOut: (() => void) | null = null;
export function setSignedOutHandler(fn: () => void): void {
  onSignedOut = fn;
}

const NO_REFRESH = /\/v1\/session(\/(refresh|link|link\/verify))?$|\/v1\/invitations\/accept$/;

/**
 * What a refresh came to: a new token in memory (`ok`); no session (`ok: false` without `error`: the refresh cookie is
 * missing, expired or revoked); or no usable answer (`error`: the network failed, or the API answered 429 or 5xx), when
 * the session may well still be good, so callers offer a retry rather than the sign-in screen.
 */
export type RefreshOutcome = { ok: true } | { ok: false; error?: ApiError };

let refreshing: Promise<RefreshOutcome> | null = null;

/**
 * One `POST /v1/session/refresh` at a time (the API treats a refresh token used twice as stolen and ends the sign-in),
 * shared by every caller that got a 401 meanwhile.
 */
export function refreshSession(): Promise<RefreshOutcome> {
  refreshing ??= (async (): Promise<RefreshOutcome> => {
    try {
      const res = await fetch('/v1/session/refresh', { method: 'POST', credentials: 'include', headers: { accept: 'application/json' } });
      if (res.ok) {
        setSession(fromSessionAnswer(await res.json()));
        return { ok: true };
      }
      if (res.status === 429 || res.status >= 500) return { ok: false, error: toApiError(res, await res.json().catch(() => undefined)) };
      return { ok: false };
    } catch (err) {
      return { ok: false, error: networkError(err) };
    } finally {
      setTimeout(() => (refreshing = null), 0);
    }
  })();
  return refreshing;
}

/**
 * The fetch behind every call: the session token as Bearer, the refresh cookie sent (`credentials: 'include'`), and on a
 * 401 one refresh then one retry; when the refresh says there is no session, the session is dropped and the app goes
 * to sign-in. A network failure becomes an ApiError with status 0, and a refresh that got no usable answer (network,
 * 429, 5xx) throws its ApiError: the screens offer a Retry and the session is kept.
 */
export async function authFetch(request: Request): Promise<Response> {
  const retry = request.clone();
  const send = (req: Request) => {
    const token = getSession()?.token;
    const headers = new Headers(req.headers);
    if (token) headers.set('authorization', `Bearer ${token}`);
    return fetch(new Request(req, { headers, credentials: 'include' })).catch((err: unknown) => {
      throw networkError(err);
    });
  };
  const res = await send(request);
  if (res.status !== 401 || NO_REFRESH.test(new URL(request.url).pathname)) return res;
  const refreshed = await refreshSession();
  if (refreshed.ok) return send(retry);
  if (refreshed.error) throw refreshed.error;
  setSession(null);
  onSignedOut?.();
  return res;
}

/** The typed client generated from the API's OpenAPI document (sdk/src/schema.ts). Paths carry their `/v1` prefix. */
export const api = createClient<paths>({ baseUrl: typeof window === 'undefined' ? '' : window.location.origin, fetch: authFetch });

/**
 * The body of a call, or a thrown ApiError:
 * `const code = await call(api.GET('/v1/qr-codes/{id}', { params: { path: { id } } }));`
 */
export async function call<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw networkError(err);
  }
  if (!result.response.ok) throw toApiError(result.response, result.error);
  return result.data as T;
}

/**
 * A raw request through the same auth, refresh and error handling: for binary answers (downloads, previews), multipart
 * uploads and endpoints newer than the committed schema. Answers the Response (2xx only; otherwise throws ApiError).
 */
export async function raw(path: string, init: RequestInit = {}): Promise<Response> {
  const res = await authFetch(new Request(new URL(path, window.location.origin), init));
  if (!res.ok) {
    const body = await res.json().catch(() => undefined);
    throw toApiError(res, body);
  }
  return res;
}

/** JSON over `raw`. */
export async function rawJson<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set('accept', 'application/json');
  if (json !== undefined) headers.set('content-type', 'application/json');
  const res = await raw(path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  return (res.status === 204 ? undefined : await res.json()) as T;
}
