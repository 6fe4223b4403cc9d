import type { INestApplication } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../common/config/config';
import { ERROR_STATUS } from '../common/errors/error-codes';

export const API_VERSION = '2026-02-08';

/** The largest request body the api reads (JSON and form bodies; uploads have their own limit, FILE_MAX_BYTES). */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

/** Paths served outside /v1: the same list for the served document and the one `npm run openapi` writes. */
export const UNPREFIXED_PATHS = ['health', 'health/live', 'health/ready', 'metrics', 'mcp'];

class ErrorBodyDto {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'invalid_request' }) code!: string;
  @ApiProperty({ example: 'name must be shorter than or equal to 255 characters' }) message!: string;
  @ApiProperty({ example: 'req_7fQ2mX9kLp4sT1vZ8nYcB3' }) request_id!: string;
  @ApiPropertyOptional({ example: 'name', description: 'The offending field' }) field?: string;
  @ApiPropertyOptional({ type: [String], example: ['name'] }) fields?: string[];
  @ApiPropertyOptional({ example: 'GS1_CHECK_DIGIT', description: 'GS1 Digital Link refusals: GS1_CHECK_DIGIT, GS1_UNKNOWN_AI, GS1_QUALIFIER_ORDER, GS1_VALUE_FORMAT, …, GS1_IDENTIFIER_TAKEN, GS1_IDENTIFIER_RETIRED, GS1_IDENTIFIER_IMMUTABLE, NOT_ENTITLED (docs/gs1.md)' }) gs1_code?: string;
  @ApiPropertyOptional({ type: 'integer', example: 250, description: 'Plan limit' }) limit?: number;
  @ApiPropertyOptional({ type: 'integer', example: 250 }) current_count?: number;
  @ApiPropertyOptional({ type: 'integer', example: 1073000000, description: 'Storage quotas: what the workspace uses now, in the limit\'s unit (bytes or files)' }) current?: number;
  @ApiPropertyOptional({ type: 'integer', example: 1 }) requested?: number;
  @ApiPropertyOptional({ example: 'plus' }) plan_id?: string;
  @ApiPropertyOptional({ example: 'http://localhost:3000/docs/errors#invalid_request', description: 'The error code\'s section of the error reference (DOCS_BASE_URL)' })
  doc_url?: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ type: ErrorBodyDto }) error!: ErrorBodyDto;
}

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'Invalid request (the envelope names the field)',
  '401': 'Missing, malformed, unknown, revoked or expired key',
  '403': 'Insufficient scope, plan restriction or plan limit',
  '404': 'Not found (also for ids of other workspaces)',
  '429': 'Rate limited or monthly quota used up (see Retry-After)',
  '503': 'service_unavailable: a dependency (PostgreSQL or Redis) is down; nothing was written (see Retry-After)',
  '504': 'query_timeout: a database statement ran past the server\'s limit and was stopped; nothing was written (narrow the request or retry later)',
};

/** Answers Node's HTTP parser or Fastify give before any route runs, on every operation (public ones included). */
const TRANSPORT_ERRORS: Record<string, string> = {
  '408': 'invalid_request: the request took too long to arrive (headers or body)',
  '431': 'invalid_request: the request line (URL) or the headers are too large',
};
/** Operations whose path has a parameter: one longer than the router allows is refused before routing. */
const PARAMETER_TOO_LONG = { '414': 'invalid_request: a path parameter is longer than any id (100 characters)' };
/** Operations that read a body: one over the body limit (2 MB) is refused before routing. */
const BODY_TOO_LARGE = { '413': 'payload_too_large: the body is larger than 2 MB; nothing was read or written' };
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Operations that take no credential at all (sign-in, the refresh cookie, invitation links): `security: []`. */
const NO_CREDENTIAL_OPERATIONS = new Set([
  'POST /v1/session',
  'POST /v1/session/refresh',
  'DELETE /v1/session',
  'POST /v1/session/link',
  'POST /v1/session/link/verify',
  'POST /v1/invitations/accept',
  'GET /v1/session/providers',
  'GET /v1/session/sso',
  'GET /v1/session/sso/callback',
]);

/** Errors only some operations answer, by `METHOD path` (`POST *`: every POST). */
const OPERATION_ERRORS: Record<string, Record<string, string>> = {
  'POST /v1/session': { '401': 'invalid_credentials: unknown e-mail or wrong password (one answer for both)' },
  'DELETE /v1/members/{id}': { '409': 'last_owner: the last owner of the workspace cannot leave' },
  'PATCH /v1/members/{id}': { '409': 'last_owner: the last owner of the workspace cannot be demoted' },
  'POST *': { '409': 'idempotency_conflict: the same Idempotency-Key was used with a different body' },
  'POST /v1/qr-codes': {
    '409': 'idempotency_conflict (same Idempotency-Key, different body); gs1_identifier_taken or gs1_identifier_retired (with gs1_code)',
    '422': 'domain_not_verified: `domain_id` names a custom domain whose DNS record is not verified yet',
  },
  'PATCH /v1/qr-codes/{id}': {
    '409': 'target_not_editable: `target` sent for a page-holding or GS1 code; nothing applied',
    '422': 'domain_id_immutable, code_not_editable (a static code field other than name, folder_id, design) or gs1_identifier_immutable (gs1_code GS1_IDENTIFIER_IMMUTABLE)',
  },
  'POST /v1/qr-codes/{id}/restore': { '409': 'gs1_identifier_taken: another code took the GS1 identifier of this paused code' },
  'PUT /v1/qr-codes/{id}/content': { '409': 'target_not_editable: the code holds no hosted content (GS1, static and redirect codes: use PATCH); nothing applied' },
  'GET /v1/qr-codes/{id}/analytics': { '422': 'static_code_not_supported: static codes have no analytics' },
  'POST /v1/qr-codes/{id}/rules/test': { '422': 'rules_not_supported: the code is not a smart URL (only smart URLs have rules)' },
  'GET /v1/batches/{id}/download': { '422': 'batch_processing: the batch has not finished' },
};

const header = (description: string, type: 'string' | 'integer') => ({ description, schema: { type } });
const COMMON_HEADERS = {
  'Request-Id': header('Identifies the request (equal to `error.request_id` on errors)', 'string'),
  'Scanlink-Version': header(`The API version (${API_VERSION})`, 'string'),
  'RateLimit-Limit': header("Requests allowed per minute for the caller's key (or anonymous window)", 'integer'),
  'RateLimit-Remaining': header('Requests left in the current window', 'integer'),
  'RateLimit-Reset': header('Seconds until the window resets', 'integer'),
  'Retry-After': header('Seconds to wait before retrying (429 and 503 only)', 'integer'),
};
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  required: false,
  description: 'Any unique string (max 255 characters). The same key with the same body within 24 hours replays the first response; with a different body it is 409 idempotency_conflict.',
  schema: { type: 'string', maxLength: 255 },
};
const SUCCESS_DESCRIPTIONS: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted: processed in the background', '204': 'No content' };

/** Every response gets a description and the headers every response carries. */
function describeResponses(responses: Record<string, unknown>, verb: string): void {
  for (const [status, value] of Object.entries(responses)) {
    const res = value as { description?: string; headers?: Record<string, unknown> };
    if (!res.description) res.description = SUCCESS_DESCRIPTIONS[status] ?? (verb === 'GET' ? 'OK' : 'Done');
    const names = ['Request-Id', 'Scanlink-Version', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', ...(status === '429' || status === '503' ? ['Retry-After'] : [])];
    res.headers = { ...res.headers, ...Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }])) };
  }
}

const DELIVERY_HEADERS: Array<[string, string, string]> = [
  ['Scanlink-Signature', 't=1764252187,v1=5f0c…', '`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`; two `v1` values, new secret first, while a rotated secret is still valid. Accept if any matches; reject a `t` more than 5 minutes from your clock.'],
  ['Scanlink-Event-Id', 'evt_7Hq2mLx9PbR4tKc1VnZs', 'The event `id` (deduplicate on it: delivery is at least once)'],
  ['Scanlink-Event-Type', 'qr.updated', 'The event `type`'],
];

/**
 * What Scanlink sends to a webhook endpoint, which no path of the document describes: the `Webhooks` tag says how a
 * delivery is signed and retried, and `x-webhooks` (OpenAPI 3.0's extension for what 3.1 calls `webhooks`, shown by
 * Redoc) describes the request with its headers and the event body (EventDto).
 */
function describeWebhookDeliveries(doc: OpenAPIObject): void {
  const headerList = DELIVERY_HEADERS.map(([name, , description]) => `\`${name}\`: ${description}`).join('; ');
  doc.tags = [
    ...(doc.tags ?? []).filter((t) => t.name !== 'Webhooks'),
    {
      name: 'Webhooks',
      description:
        'Endpoints receive each subscribed event as `POST <url>` with `Content-Type: application/json`, `User-Agent: Scanlink-Webhooks/1.0` ' +
        `and the body \`{"id","object":"event","type","created_at","data"}\` (EventDto; the same bytes GET /v1/events/{id} shows). Headers: ${headerList}. ` +
        'Any 2xx within 10 seconds is success; otherwise the delivery is retried, 7 attempts in all, 1 minute, 5 minutes, 30 minutes, 2 hours, ' +
        '6 hours and 24 hours after the previous one; then it is `failed`. A 410 answer disables the endpoint. Redirects are not followed.',
    },
  ];
  (doc as OpenAPIObject & { 'x-webhooks'?: unknown })['x-webhooks'] = {
    event: {
      post: {
        summary: 'An event delivered to your endpoint',
        description: 'Sent for every event type the endpoint subscribes to (`events`), and for `ping` by POST /v1/webhooks/{id}/test. Verify `Scanlink-Signature` against the raw body before parsing it.',
        operationId: 'webhook_event',
        tags: ['Webhooks'],
        // Scanlink calls you: no API key; the signature header authenticates the request.
        security: [],
        parameters: [
          ...DELIVERY_HEADERS.map(([name, example, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string', example } })),
          { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string', example: 'Scanlink-Webhooks/1.0' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/EventDto' } } } },
        responses: {
          '200': { description: 'Any 2xx within 10 seconds acknowledges the delivery' },
          '410': { description: 'Gone: disables the endpoint (no more deliveries until it is enabled again)' },
        },
      },
    },
  };
}

/** Builds the OpenAPI document: paths under /v1, bearer schemes, and the error envelope on every operation. */
export function buildOpenApi(app: INestApplication, config: AppConfig): OpenAPIObject {
  const origin = new URL(config.apiBaseUrl).origin;
  const doc = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Scanlink API')
      .setDescription(
        'Workspace QR codes: dynamic and static codes, batches, folders, analytics, signed webhooks and a 30-day event ' +
          'archive. Authenticate with `Authorization: Bearer qr_live_…`. ' +
          'Where the key comes from: `npm run local` prints a demo key in its banner (`Demo API key: qr_live_…`); an ' +
          'operator creates a workspace and its first key with the CLI, `npm run -s cli -- org:create --name N --plan pro ' +
          '--email E` (in a Docker deployment: `docker compose exec api node dist/src/cli.js org:create …`), which prints ' +
          '`api_key` once. In this page, click **Authorize** and paste the key alone: Swagger UI adds `Bearer ` itself. ' +
          'Errors share one envelope ' +
          '`{"error": {"code", "message", "request_id", …}}`; every response carries `Request-Id`, `Scanlink-Version` and ' +
          '`RateLimit-Limit/Remaining/Reset`. Every POST accepts an `Idempotency-Key` header (replayed for 24 hours).',
      )
      .setVersion(API_VERSION)
      .addServer(origin, 'This server (API_BASE_URL)')
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'API key',
          description:
            'API key: qr_live_… or qr_test_…, as printed by `npm run local` (Demo API key) or by the CLI command `org:create` / ' +
            '`key:create`. Paste the key alone: Swagger UI sends `Authorization: Bearer <key>` itself.',
        },
        'api_key',
      )
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Dashboard session token: a JWT from POST /v1/session (15 minutes) or an external identity provider. Every operation that lists it takes it; its role sets its scopes' }, 'dashboard_token')
      .build(),
    { extraModels: [ErrorEnvelopeDto], operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}` },
  );
  const envelopeRef = { $ref: '#/components/schemas/ErrorEnvelopeDto' };
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item) as Array<[string, { responses?: Record<string, unknown>; security?: unknown[] }]>) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      op.responses ??= {};
      const isPublic = path === '/health' || path.startsWith('/health/');
      const verb = method.toUpperCase();
      const extra = isPublic ? {} : { ...(verb === 'POST' ? OPERATION_ERRORS['POST *'] : {}), ...(OPERATION_ERRORS[`${verb} ${path}`] ?? {}) };
      const transport = { ...TRANSPORT_ERRORS, ...(path.includes('{') ? PARAMETER_TOO_LONG : {}), ...(BODY_METHODS.has(verb) ? BODY_TOO_LARGE : {}) };
      for (const [status, description] of Object.entries({ ...ERROR_RESPONSES, ...extra, ...transport })) {
        if (isPublic && status !== '400' && status !== '503' && !(status in transport)) continue;
        if (!op.responses[status]) op.responses[status] = { description, content: { 'application/json': { schema: envelopeRef } } };
      }
      // Errors are always the JSON envelope, also on operations that produce another media type (@ApiProduces applies
      // to every response it finds, error ones included).
      for (const [status, res] of Object.entries(op.responses) as Array<[string, { content?: Record<string, unknown> }]>) {
        if (Number(status) >= 400 && res && typeof res === 'object' && res.content && !res.content['application/json']) res.content = { 'application/json': { schema: envelopeRef } };
      }
      if (!isPublic && !op.security) op.security = NO_CREDENTIAL_OPERATIONS.has(`${verb} ${path}`) ? [] : [{ api_key: [] }];
      if (isPublic) op.security = [];
      describeResponses(op.responses, verb);
      if (verb === 'POST' && !isPublic) (op as { parameters?: unknown[] }).parameters = [...((op as { parameters?: unknown[] }).parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
    }
  }
  describeWebhookDeliveries(doc);
  // Scanlink is open source under the MIT licence (LICENSE, package.json).
  doc.info.license = { name: 'MIT', url: 'https://opensource.org/license/mit' };
  doc.components = { ...doc.components, headers: COMMON_HEADERS, parameters: { ...doc.components?.parameters, IdempotencyKey: IDEMPOTENCY_KEY } };
  return doc;
}

/** Serves the document and Swagger UI under /docs; returns the document (the MCP tools read their schemas from it). */
export function mountSwagger(app: INestApplication, config: AppConfig): OpenAPIObject {
  const doc = buildOpenApi(app, config);
  SwaggerModule.setup('docs', app, doc, {
    jsonDocumentUrl: 'docs/openapi.json',
    yamlDocumentUrl: 'docs/openapi.yaml',
    customSiteTitle: 'Scanlink API',
    swaggerOptions: { persistAuthorization: true },
  });
  return doc;
}
