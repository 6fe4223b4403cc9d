import { parseCreateBody } from '../qr-codes/dto/create-body';
import type { Type } from '@nestjs/common';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { AuthContext } from '../../common/auth/auth-context';
import { AnalyticsController } from '../analytics/analytics.controller';
import type { AnalyticsService } from '../analytics/analytics.service';
import { BatchesController } from '../batches/batches.controller';
import { CreateBatchDto } from '../batches/batches.dto';
import type { BatchesService } from '../batches/batches.service';
import { FoldersController } from '../folders/folders.controller';
import { ListFoldersQueryDto } from '../folders/folders.dto';
import type { FoldersService } from '../folders/folders.service';
import { CreateQrCodeDto, ListQrCodesQueryDto, UpdateQrCodeDto } from '../qr-codes/dto/qr-code.dto';
import { RuleTestBodyDto } from '../qr-codes/dto/qr-code-response.dto';
import { ApiException } from '../../common/errors/api.exception';
import { QrCodesController } from '../qr-codes/qr-codes.controller';
import type { QrCodesService } from '../qr-codes/qr-codes.service';

/** The services the tools call: the same instances the REST controllers call. */
export interface ToolServices {
  qrCodes: QrCodesService;
  analytics: AnalyticsService;
  folders: FoldersService;
  batches: BatchesService;
}

/** A tool's validated arguments, split as the REST operation takes them. */
export interface ToolInput {
  id: string;
  query: never;
  body: never;
}

/**
 * One MCP tool = one REST operation. `route` names the controller method whose rules apply unchanged: its
 * `@RequiresScope` and plan metadata (checked by the same guards), its OpenAPI operation (the input schema and the
 * description) and its DTO classes (`query`, `body`: checked by the same validation pipe). `run` calls the same service
 * method the controller calls.
 */
export interface ToolDefinition {
  name: string;
  route: [Type<unknown>, string];
  query?: Type<unknown>;
  body?: Type<unknown>;
  /** Parses a body whose shape its fields decide (POST /v1/qr-codes: a standard or a GS1 body), as the REST route does;
   * without it the body is validated against `body`. */
  parseBody?: (raw: unknown) => Promise<unknown>;
  annotations: ToolAnnotations;
  run(services: ToolServices, auth: AuthContext, input: ToolInput): Promise<object>;
}

/** A body the service validates itself (a page-holding type's content, the rule tester's facts): any JSON object. */
const anyObject = async (raw: unknown): Promise<Record<string, unknown>> => {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw ApiException.invalid(undefined, 'The arguments must be an object');
  return raw as Record<string, unknown>;
};

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'create_qr_code',
    route: [QrCodesController, 'create'],
    body: CreateQrCodeDto,
    parseBody: parseCreateBody,
    annotations: WRITE,
    run: (s, auth, { body }) => s.qrCodes.create(auth, body),
  },
  {
    name: 'list_qr_codes',
    route: [QrCodesController, 'list'],
    query: ListQrCodesQueryDto,
    annotations: READ,
    run: (s, auth, { query }) => s.qrCodes.list(auth, query),
  },
  {
    name: 'get_qr_code',
    route: [QrCodesController, 'retrieve'],
    annotations: READ,
    run: (s, auth, { id }) => s.qrCodes.retrieve(auth, id),
  },
  {
    name: 'update_qr_code',
    route: [QrCodesController, 'update'],
    body: UpdateQrCodeDto,
    annotations: { ...WRITE, idempotentHint: true },
    run: (s, auth, { id, body }) => s.qrCodes.update(auth, id, body),
  },
  {
    name: 'update_qr_code_content',
    route: [QrCodesController, 'replaceContent'],
    body: Object,
    parseBody: anyObject,
    annotations: { ...WRITE, idempotentHint: true },
    run: (s, auth, { id, body }) => s.qrCodes.replaceContent(auth, id, body),
  },
  {
    name: 'test_qr_code_rules',
    route: [QrCodesController, 'testRules'],
    body: RuleTestBodyDto,
    parseBody: anyObject,
    annotations: READ,
    run: (s, auth, { id, body }) => s.qrCodes.testRules(auth, id, body),
  },
  {
    name: 'delete_qr_code',
    route: [QrCodesController, 'remove'],
    annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
    run: (s, auth, { id }) => s.qrCodes.remove(auth, id),
  },
  {
    name: 'restore_qr_code',
    route: [QrCodesController, 'restore'],
    annotations: { ...WRITE, idempotentHint: true },
    run: (s, auth, { id }) => s.qrCodes.restore(auth, id),
  },
  {
    name: 'get_qr_code_analytics',
    route: [AnalyticsController, 'retrieve'],
    // The query is checked by the service (analytics-query.ts), as on the REST route; its parameters come from the
    // OpenAPI operation (from, to, timezone, interval and the dimension filters).
    query: Object,
    annotations: READ,
    run: (s, auth, { id, query }) => s.analytics.forCode(auth, id, (query ?? {}) as Record<string, unknown>),
  },
  {
    name: 'list_folders',
    route: [FoldersController, 'list'],
    query: ListFoldersQueryDto,
    annotations: READ,
    run: (s, auth, { query }) => s.folders.list(auth, query),
  },
  {
    name: 'create_batch',
    route: [BatchesController, 'create'],
    body: CreateBatchDto,
    annotations: WRITE,
    run: (s, auth, { body }) => s.batches.create(auth, body),
  },
  {
    name: 'get_batch',
    route: [BatchesController, 'retrieve'],
    annotations: READ,
    run: (s, auth, { id }) => s.batches.retrieve(auth, id),
  },
];

/** The OpenAPI operation id of a route, as `buildOpenApi` names it (`QrCodes_create`). */
export function operationIdOf([controller, method]: ToolDefinition['route']): string {
  return `${controller.name.replace(/Controller$/, '')}_${method}`;
}
