import { ApiException } from './api.exception';

/** Deepest nesting of arrays and objects a JSON body may have. Real requests stay below 10; the limit only stops
 * bodies built to exhaust the stack of the validators that walk them recursively. */
export const MAX_BODY_DEPTH = 32;

/** C0 controls other than tab, line feed and carriage return. */
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string breaks the input rule, or undefined when it is acceptable. */
export function stringProblem(value: string): string | undefined {
  if (FORBIDDEN_CONTROL.test(value)) {
    return value.includes('\u0000') ? 'must not contain the NUL character (U+0000)' : 'must not contain control characters other than tab, line feed and carriage return';
  }
  if (LONE_SURROGATE.test(value)) return 'must not contain unpaired UTF-16 surrogates';
  return undefined;
}

/** Fields that hold one line of text: names, titles, labels, tags, addresses of people and places on the web, ids.
 * Tab, line feed and carriage return are allowed only where multi-line text makes sense (a text code's text, a
 * message, a description, a page's content), so in these they are refused like any other control character. */
const SINGLE_LINE_KEYS: ReadonlySet<string> = new Set(['name', 'title', 'label', 'tags', 'tag', 'email', 'phone', 'hostname', 'url', 'ssid']);
const SINGLE_LINE_SUFFIXES = ['_name', '_id', '_url', '_email'];
const LINE_BREAK_OR_TAB = /[\t\n\r]/;

/** True when the field at `key` (an object key; array items take their array's key) holds a single line. */
function isSingleLineKey(key: string): boolean {
  return SINGLE_LINE_KEYS.has(key) || SINGLE_LINE_SUFFIXES.some((s) => key.endsWith(s));
}

/** Names of `Object.prototype` members (`constructor`, `__proto__`, `toString`, `valueOf`, `hasOwnProperty`, …): no
 * field of the API is named like one, and as object keys they confuse code that reads plain objects
 * (class-transformer, `in` checks, `obj[key]` lookups), so they are unknown fields wherever they appear. */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype']);

/** True for an object key named like an `Object.prototype` member. */
export const isPrototypeName = (key: string): boolean => PROTOTYPE_NAMES.has(key);

const join = (parent: string, key: string | number) =>
  typeof key === 'number' ? `${parent}[${key}]` : parent ? `${parent}.${key}` : key;

/**
 * Walks a parsed body, query or path parameter without recursion and throws a 400 `invalid_request` naming the first
 * string (value or object key) that holds U+0000, another C0 control character (tab, LF and CR are allowed, except in
 * single-line fields when `singleLineFields` is set: the API's pipes set it, a hosted form's own fields do not) or an
 * unpaired surrogate: PostgreSQL refuses such text, and no field of the API has a use for it. An object key named like
 * an `Object.prototype` member (`constructor`, `toString`, …) is an unknown field, at any depth.
 */
export function assertCleanStrings(value: unknown, root = '', opts: { singleLineFields?: boolean } = {}): void {
  // [value, path, the object key it sits under (array items inherit their array's)]
  const stack: [unknown, string, string][] = [[value, root, root]];
  while (stack.length > 0) {
    const [v, path, key] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = stringProblem(v);
      if (problem) throw ApiException.invalid(path || undefined, `${path || 'The request'} ${problem}`);
      if (opts.singleLineFields && isSingleLineKey(key) && LINE_BREAK_OR_TAB.test(v)) {
        throw ApiException.invalid(path, `${path} holds one line: it must not contain tabs or line breaks`);
      }
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, join(path, i), key]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        const at = join(path, k);
        const problem = stringProblem(k);
        if (problem) throw ApiException.invalid(at, `A field name in ${path || 'the request'} ${problem}`);
        if (PROTOTYPE_NAMES.has(k)) throw ApiException.invalid(at, `Unknown field '${at}'`);
        stack.push([item, at, k]);
      }
    }
  }
}

/** Throws a 400 when a parsed JSON value nests arrays and objects deeper than MAX_BODY_DEPTH (no recursion). */
export function assertDepth(value: unknown, max = MAX_BODY_DEPTH): void {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) throw ApiException.invalid(undefined, `The JSON body nests objects and arrays deeper than ${max} levels`);
    for (const item of Array.isArray(v) ? v : Object.values(v)) stack.push([item, depth + 1]);
  }
}

/** Throws a 400 `invalid_request` naming the first object key, at any depth, named like an `Object.prototype` member
 * (no recursion). The JSON body parser runs it on every body before anything else reads it, so `__proto__` and
 * `constructor` never reach code that reads plain objects, and the answer names the field. */
export function assertNoPrototypeKeys(value: unknown, root = ''): void {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, join(path, i)]));
      continue;
    }
    for (const k of Object.keys(v)) {
      const at = join(path, k);
      if (PROTOTYPE_NAMES.has(k)) throw ApiException.invalid(at, `Unknown field '${at}'`);
      stack.push([(v as Record<string, unknown>)[k], at]);
    }
  }
}
