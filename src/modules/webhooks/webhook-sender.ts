import type { Agent } from 'undici';
import { createSafeAgent, safeFetch, SsrfBlockedError } from '../../common/http/safe-fetch';

export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_BODY_LIMIT = 2048;
export const WEBHOOK_USER_AGENT = 'Scanlink-Webhooks/1.0';

export interface AttemptOutcome {
  /** any 2xx */
  ok: boolean;
  statusCode: number | null;
  responseBody: string | null;
  latencyMs: number;
  error: string | null;
}

/** One HTTP attempt: POST, no redirects followed, 10 s for the whole exchange, first 2 KB of the answer kept.
 * Connections go through the SSRF-safe agent, so every connect re-checks the resolved address. */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(allowHosts: string[], private readonly timeoutMs = DELIVERY_TIMEOUT_MS) {
    this.agent = createSafeAgent({ allowHosts, connectTimeoutMs: timeoutMs });
  }

  async send(url: string, body: string, headers: Record<string, string>): Promise<AttemptOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    try {
      const res = await safeFetch(this.agent, url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...headers },
        timeoutMs: this.timeoutMs,
        maxBytes: RESPONSE_BODY_LIMIT,
        onOversize: 'truncate',
        maxRedirects: 0,
      });
      const ok = res.status >= 200 && res.status < 300;
      // Postgres text cannot hold NUL; a cut multi-byte character becomes U+FFFD.
      const responseBody = res.body.toString('utf8').replace(/\0/g, '');
      let error: string | null = null;
      if (res.status >= 300 && res.status < 400) error = `Redirects are not followed (HTTP ${res.status})`;
      else if (!ok) error = `Receiver answered HTTP ${res.status}`;
      return { ok, statusCode: res.status, responseBody, latencyMs: latency(), error };
    } catch (err) {
      return { ok: false, statusCode: null, responseBody: null, latencyMs: latency(), error: describe(err, this.timeoutMs) };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof SsrfBlockedError) return `Blocked: ${err.message}`;
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || /timed out/.test(e.message ?? '')) {
    return `Timed out after ${timeoutMs} ms`;
  }
  const code = e.cause?.code ?? e.code;
  const message = e.cause?.message ?? e.message ?? 'unknown error';
  return `Connection failed: ${code ? `${code} ` : ''}${message}`.slice(0, 500);
}
