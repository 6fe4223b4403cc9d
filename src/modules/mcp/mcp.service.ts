import { asActor } from '../../common/audit/audit-context';
import { Injectable, Logger, type ArgumentMetadata, type OnModuleInit, type Type } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { EntityManager, RequestContext } from '@mikro-orm/postgresql';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { type CallToolRequest, CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AUTH_PROPERTY, type AuthContext } from '../../common/auth/auth-context';
import { PlanGuard } from '../../common/auth/plan.guard';
import { ScopeGuard } from '../../common/auth/scope.guard';
import { ApiException } from '../../common/errors/api.exception';
import { toEnvelope } from '../../common/errors/exception.filter';
import { assertDepth } from '../../common/errors/input-rules';
import { createValidationPipe } from '../../common/errors/validation';
import { RateLimiter, type RateLimitState } from '../../common/http/rate-limiter';
import { newId } from '../../common/ids';
import { AccountsService } from '../accounts/accounts.service';
import { AnalyticsService } from '../analytics/analytics.service';
import { BatchesService } from '../batches/batches.service';
import { FoldersService } from '../folders/folders.service';
import { QrCodesService } from '../qr-codes/qr-codes.service';
import { operationIdOf, TOOLS, type ToolDefinition, type ToolInput, type ToolServices } from './mcp-tools';
import { operationInput, type OpenApiDocument, type OperationInput } from './tool-schemas';

/** tools/call with any params: the SDK's Server validates them (see createServer). */
const CALL_TOOL_METHOD_ONLY = CallToolRequestSchema.pick({ method: true }).passthrough();

/** How a transport tells the tools who calls: the HTTP endpoint passes the request's AuthContext, stdio resolves
 * SCANLINK_API_KEY again on every call (a key revoked meanwhile stops working at once). */
export type Authenticate = () => Promise<AuthContext>;

export interface CallHooks {
  /** The caller's rate-limit window after a tool call counted (the HTTP endpoint sends it as RateLimit-* headers). */
  onRateLimit?(state: RateLimitState): void;
}

interface Described extends ToolDefinition, OperationInput {}

/**
 * The MCP server of the API (docs/mcp.md): the tools of TOOLS over any transport. A tool call runs the steps a REST
 * request runs, in the same order and with the same code: rate limit (the key's window and monthly quota), scope and
 * plan (ScopeGuard, PlanGuard on the route's metadata), the validation pipe on the DTO classes, then the service
 * method in its own ORM context. Errors are tool results (`isError`) carrying the API's error envelope.
 */
@Injectable()
export class McpService implements OnModuleInit {
  private readonly logger = new Logger('Mcp');
  private readonly pipe = createValidationPipe();
  private readonly scopeGuard: ScopeGuard;
  private readonly planGuard: PlanGuard;
  private readonly services: ToolServices;
  private described?: Map<string, Described>;
  private version = '1.0.0';
  private limiter!: RateLimiter;

  constructor(
    reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly em: EntityManager,
    private readonly accounts: AccountsService,
    qrCodes: QrCodesService,
    analytics: AnalyticsService,
    folders: FoldersService,
    batches: BatchesService,
  ) {
    this.scopeGuard = new ScopeGuard(reflector);
    this.planGuard = new PlanGuard(reflector);
    this.services = { qrCodes, analytics, folders, batches };
  }

  /** The api process's own RateLimiter (the one behind the REST guard), not a copy. */
  onModuleInit(): void {
    this.limiter = this.moduleRef.get(RateLimiter, { strict: false });
  }

  /** Reads every tool's input schema and description from the API's OpenAPI document (called once at boot). */
  describe(doc: OpenApiDocument): void {
    this.described = new Map(TOOLS.map((t) => [t.name, { ...t, ...operationInput(doc, operationIdOf(t.route)) }]));
    if (doc.info?.version) this.version = doc.info.version;
  }

  /** The key's AuthContext (401 `unauthorized` ApiException when missing, malformed, unknown, revoked or expired). */
  authenticate(key: string): Promise<AuthContext> {
    return this.accounts.authenticate(key);
  }

  /** An MCP server for one connection (stdio) or one request (stateless Streamable HTTP). */
  createServer(authenticate: Authenticate, hooks: CallHooks = {}): Server {
    const server = new Server(
      { name: 'scanlink', title: 'Scanlink', version: this.version },
      { capabilities: { tools: {} }, instructions: 'Scanlink QR codes: create, list, update, trash and restore codes, read their scan analytics, list folders, create batches.' },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.tools() }));
    // Registered with the method alone: the SDK's Server checks a tools/call request against CallToolRequestSchema
    // itself and answers a malformed one (`arguments` that is not an object) with -32602 invalid params, whereas the
    // full schema here would fail first, as an internal error (-32603) carrying zod's dump.
    server.setRequestHandler(CALL_TOOL_METHOD_ONLY, (req) => {
      const { params } = req as unknown as CallToolRequest;
      return this.call(params.name, params.arguments, authenticate, hooks);
    });
    return server;
  }

  tools(): Tool[] {
    return [...this.catalog().values()].map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations }));
  }

  /** Counts `n` protocol messages of a JSON-RPC batch in the key's minute window (RateLimiter.consumeMessages). */
  countMessages(auth: AuthContext, n: number): Promise<RateLimitState | undefined> {
    return this.limiter.consumeMessages(auth, n);
  }

  async call(name: string, args: Record<string, unknown> | undefined, authenticate: Authenticate, hooks: CallHooks = {}): Promise<CallToolResult> {
    const tool = this.catalog().get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const requestId = newId('req');
    const started = Date.now();
    try {
      const auth = await authenticate();
      try {
        const state = await this.limiter.consume(auth);
        hooks.onRateLimit?.(state);
      } catch (err) {
        const state = (err as { rateLimit?: RateLimitState }).rateLimit;
        if (state) hooks.onRateLimit?.(state);
        throw err;
      }
      this.checkRoute(tool.route, auth);
      const input = await this.parse(tool, args ?? {});
      // The audit log names the key (or member) behind the tool call, over HTTP and stdio alike, and the tool call's
      // request id (the one its log line and error envelope carry).
      const actor = auth.actor ? { type: 'user' as const, id: auth.actor.id, email: auth.actor.email } : { type: 'api_key' as const, id: auth.keyId };
      const result = await asActor(actor, () => RequestContext.create(this.em, () => tool.run(this.services, auth, input)), requestId);
      this.logger.log({ request_id: requestId, tool: name, ms: Date.now() - started }, 'tool call');
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    } catch (err) {
      const { body, retryAfter } = toEnvelope(err, requestId, this.logger);
      const error = retryAfter === undefined ? body.error : { ...body.error, retry_after: retryAfter };
      this.logger.log({ request_id: requestId, tool: name, code: error.code, ms: Date.now() - started }, 'tool call');
      return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
    }
  }

  private catalog(): Map<string, Described> {
    if (!this.described) throw new Error('McpService.describe(openApiDocument) was not called at boot');
    return this.described;
  }

  /** The route's guards, on the route's own metadata: 403 insufficient_scope, then 403 plan_restricted. */
  private checkRoute([controller, method]: ToolDefinition['route'], auth: AuthContext): void {
    const handler = (controller.prototype as Record<string, (...args: unknown[]) => unknown>)[method];
    const context = new ExecutionContextHost([{ [AUTH_PROPERTY]: auth }], controller, handler);
    this.scopeGuard.canActivate(context);
    this.planGuard.canActivate(context);
  }

  /** Splits the flat arguments into path parameter, query and body, and runs each through the API's validation pipe
   * (the string rule, then class-validator on the DTO class, unknown fields refused). Query values arrive as strings
   * over HTTP, so numbers and booleans are turned into strings first. */
  private async parse(tool: Described, args: Record<string, unknown>): Promise<ToolInput> {
    assertDepth(args);
    const query: Record<string, unknown> = {};
    const body: Record<string, unknown> = {};
    let id: unknown;
    for (const [key, value] of Object.entries(args)) {
      if (tool.pathParams.includes(key)) id = value;
      else if (tool.queryParams.includes(key)) query[key] = typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
      else if (tool.body) body[key] = value;
      else if (tool.query) query[key] = value;
      else throw ApiException.invalid(key, `Unknown field '${key}'`);
    }
    const run = (value: unknown, type: ArgumentMetadata['type'], metatype: Type<unknown> | undefined, data?: string) =>
      this.pipe.transform(value, { type, metatype, data }) as Promise<never>;
    if (tool.pathParams.length) {
      if (typeof id !== 'string' || id === '') throw ApiException.invalid('id', 'id is required: a string such as qr_…');
      await run(id, 'param', String, 'id');
    }
    return {
      id: id as string,
      query: tool.query ? await run(query, 'query', tool.query) : (undefined as never),
      body: tool.parseBody ? ((await tool.parseBody(await run(body, 'body', Object))) as never) : tool.body ? await run(body, 'body', tool.body) : (undefined as never),
    };
  }
}
