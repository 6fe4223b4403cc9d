import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv/dist/2019';
import addFormats from 'ajv-formats';
import { extendedBases, toJsonSchema } from '../setup/openapi-check';

type Schema = Record<string, any>;

/**
 * Every request example of the OpenAPI document is valid against its own schema, so "Try it out" in Swagger UI sends
 * something the API's document accepts: the explicit examples of each request body (`example`, `examples`), the
 * example Swagger UI builds from the schema when an operation has none (property examples, else placeholders), and
 * every parameter's example. sdk/openapi.json is the served document: test/e2e/sdk.e2e-spec.ts proves it equal to
 * /docs/openapi.json and `npm run sdk:generate -- --check` (CI) to the code.
 */
const doc = JSON.parse(readFileSync(join(__dirname, '..', '..', 'sdk', 'openapi.json'), 'utf8')) as Schema;
/** Follows a `#/…` reference (schemas, parameters) to what it names. */
const deref = (s: Schema): Schema => (s?.$ref ? deref(s.$ref.slice(2).split('/').reduce((node: Schema, key: string) => node[key], doc)) : s);

/** What Swagger UI fills "Try it out" with when an operation gives no example: the schema's own example, else one
 * built property by property (the first alternative of a oneOf/anyOf, every part of an allOf). */
function sample(node: Schema, depth = 0): unknown {
  const s = deref(node);
  if (s.example !== undefined) return s.example;
  if (depth > 8) return undefined;
  if (s.allOf) return Object.assign({}, ...s.allOf.map((p: Schema) => sample(p, depth + 1)));
  if (s.oneOf || s.anyOf) return sample((s.oneOf ?? s.anyOf)[0], depth + 1);
  if (s.enum) return s.enum[0];
  if (s.default !== undefined) return s.default;
  if (s.type === 'array') return [sample(s.items ?? {}, depth + 1)];
  if (s.type === 'object' || s.properties) {
    return Object.fromEntries(Object.entries<Schema>(s.properties ?? {}).filter(([, p]) => !p.readOnly).map(([k, p]) => [k, sample(p, depth + 1)]));
  }
  if (s.type === 'integer' || s.type === 'number') return s.minimum ?? 0;
  if (s.type === 'boolean') return true;
  const formats: Record<string, string> = { 'date-time': '2026-02-08T12:00:00.000Z', date: '2026-02-08', email: 'user@example.com', uri: 'https://example.com' };
  return formats[s.format] ?? 'string';
}

interface Case {
  what: string;
  schema: Schema;
  value: unknown;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      const name = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) {
        const param = deref(p);
        const example = param.example ?? param.schema?.example;
        if (example !== undefined) out.push({ what: `${name} parameter ${param.name}`, schema: param.schema, value: example });
      }
      const json = op.requestBody?.content?.['application/json'];
      if (!json) continue;
      if (json.example !== undefined) out.push({ what: `${name} body example`, schema: json.schema, value: json.example });
      for (const [key, ex] of Object.entries<Schema>(json.examples ?? {})) out.push({ what: `${name} body examples.${key}`, schema: json.schema, value: deref(ex).value });
      if (json.example === undefined && !json.examples) out.push({ what: `${name} body (built by Swagger UI)`, schema: json.schema, value: sample(json.schema) });
    }
  }
  return out;
}

describe('OpenAPI request examples', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const open = extendedBases(doc);
  ajv.addSchema({ $id: 'openapi', components: toJsonSchema(doc.components, open) });
  const all = cases();

  it('finds the examples of every operation that takes a body', () => {
    const withBody = Object.values<Schema>(doc.paths).flatMap((item) => Object.values<Schema>(item)).filter((op) => op.requestBody?.content?.['application/json']);
    expect(withBody.length).toBeGreaterThan(10);
    expect(all.filter((c) => c.what.includes(' body')).length).toBeGreaterThanOrEqual(withBody.length);
  });

  it.each(all.map((c) => [c.what, c] as const))('%s is valid against its schema', (_what, c) => {
    const validate = ajv.compile(toJsonSchema(c.schema, open) as Schema);
    const ok = validate(c.value);
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params && 'unevaluatedProperty' in e.params ? ` '${e.params.unevaluatedProperty}'` : ''}`);
    if (!ok) throw new Error(`${c.what}:\n  ${errors.join('\n  ')}\n${JSON.stringify(c.value).slice(0, 400)}`);
  });

  it('refuses an example that breaks its schema (the check can fail)', () => {
    const create = doc.paths['/v1/folders'].post.requestBody.content['application/json'].schema;
    const validate = ajv.compile(toJsonSchema(create, open) as Schema);
    expect(validate({ name: 'ok' })).toBe(true);
    expect(validate({ name: 'ok', colour: 'red' })).toBe(false);
    expect(validate({ name: 42 })).toBe(false);
  });
});
