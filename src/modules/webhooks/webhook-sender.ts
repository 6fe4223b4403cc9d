import type { Agent } from 'undici';
import { createSafeAgent, SsrfBlockedError } from '../../common/http/safe-fetch';

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
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error(`timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
    try {
      // undici's request() rather than fetch(): no WHATWG streams or header guards per attempt, a fraction of the CPU.
      // Redirects are never followed (the dispatcher has no redirect interceptor); the body read stops at 2 KB.
      const target = new URL(url);
      const res = await this.agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...headers },
        body,
        signal: controller.signal,
      });
      const status = res.statusCode;
      const ok = status >= 200 && status < 300;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        const room = RESPONSE_BODY_LIMIT - size;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (size >= RESPONSE_BODY_LIMIT) break;
      }
      if (size >= RESPONSE_BODY_LIMIT) res.body.destroy();
      // Postgres text cannot hold NUL; a cut multi-byte character becomes U+FFFD.
      const responseBody = Buffer.concat(chunks).toString('utf8').replace(/\0/g, '');
      let error: string | null = null;
      if (status >= 300 && status < 400) error = `Redirects are not followed (HTTP ${status})`;
      else if (!ok) error = `Receiver answered HTTP ${status}`;
      return { ok, statusCode: status, responseBody, latencyMs: latency(), error };
    } catch (err) {
      return { ok: false, statusCode: null, responseBody: null, latencyMs: latency(), error: describe(err, this.timeoutMs) };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof SsrfBlockedError) return `Blocked: ${err.message}`;
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof SsrfBlockedError) return `Blocked: ${cause.message}`;
  const e = err as { name?: string; message?: string; code?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || /timed out/.test(e.message ?? '')) {
    return `Timed out after ${timeoutMs} ms`;
  }
  const code = e.cause?.code ?? e.code;
  const message = e.cause?.message ?? e.message ?? 'unknown error';
  return `Connection failed: ${code ? `${code} ` : ''}${message}`.slice(0, 500);
}
