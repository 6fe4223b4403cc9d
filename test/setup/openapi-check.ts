import Ajv from 'ajv/dist/2019';
import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Every JSON response the e2e suite receives from the api is checked against the OpenAPI document that api serves
 * (/docs/openapi.json): the operation is found by method and path, the response by status, and the body must match its
 * schema, with no field the document does not list. An undocumented status, or a body the document contradicts, fails
 * the test that made the request, so the document cannot drift from the code.
 */

type Schema = Record<string, unknown>;
interface Operation {
  method: string;
  pattern: RegExp;
  params: number;
  template: string;
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Checker {
  operations: Operation[];
  ajv: Ajv;
  compiled: Map<string, ValidateFunction>;
}

const DOC_ID = 'openapi';
const checkers = new Map<string, Promise<Checker | null>>();
const checkerOpen = new WeakMap<Ajv, Set<string>>();

/** Components other schemas extend (`allOf: [{$ref: base}, {…}]`): left open, the extending schema is closed. */
export function extendedBases(doc: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(doc)) doc.forEach((d) => extendedBases(d, found));
  else if (doc && typeof doc === 'object') {
    const allOf = (doc as Schema).allOf;
    if (Array.isArray(allOf) && allOf.length > 1) for (const part of allOf) if (typeof part?.$ref === 'string') found.add(part.$ref);
    Object.values(doc).forEach((d) => extendedBases(d, found));
  }
  return found;
}

/** OpenAPI 3.0 schema → JSON Schema (2019-09): `nullable`, refs into the document, and closed objects (a field the
 * document does not list fails). */
export function toJsonSchema(node: unknown, open: Set<string>, name?: string, part = false): unknown {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, open, undefined, part));
  if (!node || typeof node !== 'object') return node;
  const out: Schema = {};
  for (const [k, v] of Object.entries(node as Schema)) {
    if (k === 'example' || k === 'examples') continue;
    if (k === '$ref' && typeof v === 'string') out[k] = `${DOC_ID}${v}`;
    else if (k === 'schemas' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, toJsonSchema(s, open, `#/components/schemas/${n}`)]));
    } else out[k] = toJsonSchema(v, open, undefined, k === 'allOf');
  }
  const composed = Array.isArray(out.allOf) && out.allOf.length > 1;
  const closable = composed || (out.properties && !part && !(name && open.has(name)));
  if (closable && out.additionalProperties === undefined) out.unevaluatedProperties = false;
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string' && !out.allOf && !out.$ref && !out.anyOf && !out.oneOf) {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    } else return { anyOf: [out, { type: 'null' }] };
  }
  delete out.nullable;
  return out;
}

async function load(origin: string): Promise<Checker | null> {
  const res = await fetch(`${origin}/docs/openapi.json`).catch(() => null);
  if (!res || res.status !== 200) return null; // not an api (the scan host)
  const doc = (await res.json()) as { paths: Record<string, Record<string, Operation['responses'] | unknown>>; components: Schema };
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const open = extendedBases(doc);
  ajv.addSchema({ $id: DOC_ID, components: toJsonSchema(doc.components, open) });
  const operations: Operation[] = [];
  checkerOpen.set(ajv, open);
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const responses = (op as { responses?: Operation['responses'] }).responses;
      if (!responses) continue;
      const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      operations.push({ method: method.toUpperCase(), pattern: new RegExp(`^${source}/?$`), params: (template.match(/\{/g) ?? []).length, template, responses });
    }
  }
  operations.sort((a, b) => a.params - b.params); // literal segments win: /v1/tokens/rotate before /v1/tokens/{id}
  return { operations, ajv, compiled: new Map() };
}

/**
 * Throws when an answer from `origin` contradicts the document: its status is not listed, its media type
 * (`contentType`, the Content-Type header) is not declared for that status, or its JSON `body` does not match the
 * schema. Non-api origins are skipped.
 */
export async function assertMatchesOpenApi(origin: string, method: string, url: string, status: number, body: unknown, contentType = 'application/json'): Promise<void> {
  if (!checkers.has(origin)) checkers.set(origin, load(origin));
  const checker = await checkers.get(origin);
  const path = url.split('?')[0];
  if (!checker || !path.startsWith('/v1/')) return;
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const candidates = checker.operations.filter((o) => o.pattern.test(path));
  const op = candidates.find((o) => o.method === verb);
  // Unknown routes (404) and methods a path does not have (405) answer the error envelope.
  const responses = op?.responses ?? { [String(status)]: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelopeDto' } } } } };
  const template = op?.template ?? '(no operation)';
  const response = responses[String(status)] ?? responses.default;
  if (!response) throw new Error(`OpenAPI: ${verb} ${template} answered ${status}, a status the document does not list`);
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  const declared = Object.keys(response.content ?? {});
  if (mediaType && !declared.includes(mediaType)) {
    throw new Error(`OpenAPI: ${verb} ${template} answered ${status} as ${mediaType}; the document declares ${declared.join(', ') || 'no content'} for that status`);
  }
  if (mediaType !== 'application/json') return;
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return;
  const key = `${verb} ${template} ${status}`;
  let validate = checker.compiled.get(key);
  if (!validate) {
    validate = checker.ajv.compile(toJsonSchema(schema, checkerOpen.get(checker.ajv) ?? new Set()) as Schema);
    checker.compiled.set(key, validate);
  }
  if (!validate(body)) {
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}${e.params && 'unevaluatedProperty' in e.params ? ` '${e.params.unevaluatedProperty}'` : ''}`);
    throw new Error(`OpenAPI: the ${status} body of ${verb} ${template} does not match the document:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(body).slice(0, 500)}`);
  }
}
