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
    // A body that is one of several shapes (oneOf or anyOf: POST /v1/qr-codes takes a standard or a GS1 body, PUT
    // …/content the fields of any page-holding type) becomes one object: every field of every shape (a field the shapes
    // type differently takes any of their schemas), required when every shape requires it. The API's own validation
    // then checks the shape the call chose.
    const alternatives = Array.isArray(bodySchema.oneOf) ? bodySchema.oneOf : Array.isArray(bodySchema.anyOf) ? bodySchema.anyOf : [bodySchema];
    const shapes = (alternatives as JsonSchema[]).map((shape) => {
      const ref = typeof shape.$ref === 'string' ? COMPONENT_REF.exec(shape.$ref) : null;
      return (ref ? doc.components?.schemas?.[ref[1]] : shape) as JsonSchema | undefined;
    });
    const variants = new Map<string, unknown[]>();
    for (const shape of shapes) {
      for (const [name, schema] of Object.entries((shape?.properties ?? {}) as Record<string, unknown>)) {
        const converted = toJsonSchema(schema, refs);
        const seen = variants.get(name) ?? [];
        if (!seen.some((v) => JSON.stringify(v) === JSON.stringify(converted))) seen.push(converted);
        variants.set(name, seen);
      }
    }
    bodyFields = [...variants.keys()];
    for (const [name, seen] of variants) {
      if (name in properties) throw new Error(`MCP tools: '${operationId}' has a body field and a parameter both named '${name}'`);
      properties[name] = seen.length === 1 ? seen[0] : { anyOf: seen };
    }
    const requiredBy = shapes.map((shape) => new Set((shape?.required as string[] | undefined) ?? []));
    required.push(...[...requiredBy[0]].filter((name) => requiredBy.every((set) => set.has(name))));
  }
  const inputSchema: JsonSchema & { type: 'object' } = { type: 'object', properties, additionalProperties: false };
  if (required.length) inputSchema.required = required;
  if (refs.size) inputSchema.$defs = definitions(doc, refs);
  const description = [op.summary, op.description].filter(Boolean).join('. ').replace(/\.\./g, '.');
  return { description, inputSchema, pathParams, queryParams, bodyFields };
}
