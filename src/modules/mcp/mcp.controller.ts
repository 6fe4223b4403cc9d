import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setRateLimitHeaders } from '../../common/auth/api-key.guard';
import { Auth, type AuthContext } from '../../common/auth/auth-context';
import { Unmetered } from '../../common/auth/decorators';
import { WithoutIdempotency } from '../../common/http/idempotency.interceptor';
import type { RateLimitState } from '../../common/http/rate-limiter';
import { McpService } from './mcp.service';

/** The messages of a JSON-RPC batch that count at the door: all but tool calls, which count when they run. */
export function batchMessagesToCount(body: unknown): number {
  if (!Array.isArray(body)) return 0;
  return body.filter((m) => !(m && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call')).length;
}

/** Response headers of the transport the API sets itself (or that do not apply to a complete JSON answer). */
const SKIPPED_HEADERS = new Set(['content-length', 'connection', 'transfer-encoding']);

/**
 * `POST /mcp`: MCP Streamable HTTP in its stateless form (docs/mcp.md). The Bearer API key is checked by the global
 * guard like on every REST route (same 401 envelope), but not counted there: each tool call counts against the key's
 * rate limit instead, and so does every other message of a JSON-RPC batch. Every request gets its own MCP server bound to the request's AuthContext, answered as one JSON
 * document, so any api replica can answer any request (no session to keep). GET and DELETE /mcp (the server-sent
 * stream and session end of stateful servers) answer 405 with `Allow: POST`, which clients take as "not offered".
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpService) {}

  @Post()
  @Unmetered()
  @WithoutIdempotency()
  async handle(@Auth() auth: AuthContext, @Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // A batch (a JSON array of messages) costs one request per message: 100 `tools/list` in one POST count 100, so a
    // small key cannot get a large answer for one request. Single protocol messages (the handshake) stay uncounted.
    try {
      const state = await this.mcp.countMessages(auth, batchMessagesToCount(req.body));
      if (state) setRateLimitHeaders(reply, state);
    } catch (err) {
      const state = (err as { rateLimit?: RateLimitState }).rateLimit;
      if (state) setRateLimitHeaders(reply, state);
      throw err;
    }
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = this.mcp.createServer(async () => auth, { onRateLimit: (state) => setRateLimitHeaders(reply, state) });
    await server.connect(transport);
    try {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers.set(name, value);
        else if (Array.isArray(value)) headers.set(name, value.join(', '));
      }
      const request = new Request(new URL(req.url, 'http://mcp.invalid'), { method: 'POST', headers });
      const response = await transport.handleRequest(request, { parsedBody: req.body });
      response.headers.forEach((value, name) => {
        if (!SKIPPED_HEADERS.has(name)) void reply.header(name, value);
      });
      const text = await response.text();
      await reply.status(response.status).send(text === '' ? undefined : text);
    } finally {
      await server.close();
    }
  }
}
