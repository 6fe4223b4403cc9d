import { ApiException } from './api.exception';
import { assertCleanStrings, assertDepth, assertNoPrototypeKeys, stringProblem } from './input-rules';

function fieldOf(fn: () => void): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as ApiException).extras.field ?? '(none)';
  }
  return undefined;
}

describe('stringProblem', () => {
  it('accepts ordinary text, tabs, line breaks and paired surrogates', () => {
    for (const ok of ['hello', 'a\tb\r\nc', 'emoji 😀', 'é', '']) expect(stringProblem(ok)).toBeUndefined();
  });
  it('refuses NUL, other C0 controls and lone surrogates', () => {
    for (const bad of ['a\u0000b', '\u0001', 'x\u001b[31m', '\u000b', '\ud800', 'a\udc00b', '\ud83d']) expect(stringProblem(bad)).toBeDefined();
  });
});

describe('assertCleanStrings', () => {
  it('names the offending field with its path', () => {
    expect(fieldOf(() => assertCleanStrings({ target: { destination: 'x\u0000' } }))).toBe('target.destination');
    expect(fieldOf(() => assertCleanStrings({ tags: ['ok', '\ud800'] }))).toBe('tags[1]');
    expect(fieldOf(() => assertCleanStrings('\u0000', 'id'))).toBe('id');
    expect(fieldOf(() => assertCleanStrings({ ok: 1, list: [{ a: 'b' }] }))).toBeUndefined();
  });
  it('refuses tabs and line breaks in single-line fields, keeps them in multi-line ones', () => {
    const single = { singleLineFields: true };
    expect(fieldOf(() => assertCleanStrings({ name: 'a\nb' }, '', single))).toBe('name');
    expect(fieldOf(() => assertCleanStrings({ tags: ['ok', 'a\tb'] }, '', single))).toBe('tags[1]');
    expect(fieldOf(() => assertCleanStrings({ webhook_url: 'https://x.test/\r' }, '', single))).toBe('webhook_url');
    expect(fieldOf(() => assertCleanStrings({ folder_id: 'fld_1\n' }, '', single))).toBe('folder_id');
    expect(fieldOf(() => assertCleanStrings('a\nb', 'tag', single))).toBe('tag');
    expect(fieldOf(() => assertCleanStrings({ target: { type: 'text', text: 'line 1\r\n\tline 2', destination: 'BEGIN:VCARD\r\nEND:VCARD' }, description: 'a\nb' }, '', single))).toBeUndefined();
    // Without the option (a hosted form's own fields), only the C0 rule applies.
    expect(fieldOf(() => assertCleanStrings({ name: 'a\nb' }))).toBeUndefined();
  });
  it('refuses a bad object key', () => {
    // The field is the key's own path (JSON escapes the control character in the answer), at the top level too.
    expect(fieldOf(() => assertCleanStrings({ target: { ['\u0000']: 1 } }))).toBe('target.\u0000');
    expect(fieldOf(() => assertCleanStrings({ name: 'x', ['a\u0001']: 1 }))).toBe('a\u0001');
  });
});

describe('assertDepth', () => {
  it('refuses 10,000 levels without overflowing the stack and accepts ordinary bodies', () => {
    const deep = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000));
    expect(fieldOf(() => assertDepth(deep))).toBe('(none)');
    expect(fieldOf(() => assertDepth({ a: { b: [{ c: 1 }] } }))).toBeUndefined();
  });
});

describe('assertNoPrototypeKeys', () => {
  it('names the first key called like an Object.prototype member, at any depth, __proto__ included', () => {
    expect(fieldOf(() => assertNoPrototypeKeys(JSON.parse('{"a":[{"b":{"__proto__":1}}]}')))).toBe('a[0].b.__proto__');
    expect(fieldOf(() => assertNoPrototypeKeys({ target: { constructor: {} } }))).toBe('target.constructor');
    for (const k of ['toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__lookupGetter__']) {
      expect(fieldOf(() => assertNoPrototypeKeys(JSON.parse(`{"design":{"colors":{"${k}":"#000"}}}`)))).toBe(`design.colors.${k}`);
    }
    expect(fieldOf(() => assertCleanStrings({ q: { valueOf: 1 } }, ''))).toBe('q.valueOf');
  });
  it('accepts ordinary keys, including ones that merely contain such a name', () => {
    expect(fieldOf(() => assertNoPrototypeKeys({ constructor_name: 1, my_toString: [{ proto: 2 }], Constructor: 3 }))).toBeUndefined();
  });
});
