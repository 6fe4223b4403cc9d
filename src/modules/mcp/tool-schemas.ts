/**
 * Tool input schemas, derived from the API's own OpenAPI document (which @nestjs/swagger generates from the same DTO
 * classes the validation pipe checks): no schema is written twice. An operation's path parameters, query parameters
 * and JSON body fields become one flat object, as an MCP client expects; OpenAPI 3.0 details that are not JSON Schema
 * (`nullable`, `example`, `discriminator`, refs into `#/components`) are rewritten, and every referenced component is
 * carried along under `$defs`.
 */

export type JsonSchema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  info?: { version?: string };
  paths: Record<string, object>;
  components?: { schemas?: Record<string, object> };
}

/** What a tool needs from its operation: the input schema and where each argument goes. */
export interface OperationInput {
  description: string;
  inputSchema: JsonSchema & { type: 'object' };
  pathParams: string[];
  queryParams: string[];
  bodyFields: string[] | null;
}

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

function findOperation(doc: OpenApiDocument, operationId: string): Operation {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item as Record<string, unknown>)) {
      if (op && typeof op === 'object' && (op as Operation).operationId === operationId) return op as Operation;
    }
  }
  throw new Error(`MCP tools: no operation '${operationId}' in the OpenAPI document`);
}

/** One OpenAPI 3.0 schema node as JSON Schema; the names of the components it refers to are added to `refs`. */
export function toJsonSchema(node: unknown, refs: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, refs));
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (key === 'discriminator' || key === 'nullable' || key === 'example') continue;
    const ref = key === '$ref' && typeof value === 'string' ? COMPONENT_REF.exec(value) : null;
    if (ref) {
      refs.add(ref[1]);
      out.$ref = `#/$defs/${ref[1]}`;
    } else {
      out[key] = toJsonSchema(value, refs);
    }
  }
  const source = node as JsonSchema;
  if (source.example !== undefined && out.examples === undefined) out.examples = [source.example];
  if (source.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

/** The components `refs` names, and those they refer to in turn, as JSON Schema `$defs`. */
function definitions(doc: OpenApiDocument, refs: Set<string>): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  const pending = [...refs];
  while (pending.length) {
    const name = pending.pop()!;
    if (name in defs) continue;
    const component = doc.components?.schemas?.[name];
    if (!component) throw new Error(`MCP tools: the OpenAPI document has no component '${name}'`);
    const more = new Set<string>();
    defs[name] = toJsonSchema(component, more);
    for (const m of more) if (!(m in defs)) pending.push(m);
  }
  return defs;
}

/** The input of the operation `operationId`: one flat object of its path parameters, query parameters and body fields. */
export function operationInput(doc: OpenApiDocument, operationId: string): OperationInput {
  const op = findOperation(doc, operationId);
  const refs = new Set<string>();
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  for (const p of op.parameters ?? []) {
    if (!('name' in p) || (p.in !== 'path' && p.in !== 'query')) continue;
    const schema = toJsonSchema(p.schema ?? { type: 'string' }, refs) as JsonSchema;
    properties[p.name] = p.description ? { ...schema, description: p.description } : schema;
    if (p.in === 'path') pathParams.push(p.name);
    else queryParams.push(p.name);
    if (p.required || p.in === 'path') required.push(p.name);
  }
  let bodyFields: string[] | null = null;
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    const ref = typeof bodySchema.$ref === 'string' ? COMPONENT_REF.exec(bodySchema.$ref) : null;
    const body = (ref ? doc.components?.schemas?.[ref[1]] : bodySchema) as JsonSchema | undefined;
    const fields = (body?.properties ?? {}) as Record<string, unknown>;
    bodyFields = Object.keys(fields);
    for (const [name, schema] of Object.entries(fields)) {
      if (name in properties) throw new Error(`MCP tools: '${operationId}' has a body field and a parameter both named '${name}'`);
      properties[name] = toJsonSchema(schema, refs);
    }
    required.push(...((body?.required as string[] | undefined) ?? []));
  }
  const inputSchema: JsonSchema & { type: 'object' } = { type: 'object', properties, additionalProperties: false };
  if (required.length) inputSchema.required = required;
  if (refs.size) inputSchema.$defs = definitions(doc, refs);
  const description = [op.summary, op.description].filter(Boolean).join('. ').replace(/\.\./g, '.');
  return { description, inputSchema, pathParams, queryParams, bodyFields };
}
