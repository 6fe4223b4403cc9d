import { CSET82 } from './check-digits';
import { Gs1Error, type Gs1Code } from './gs1.error';
import { runLinter } from './linters';
import { gs1Dictionary, type AiComponent, type AiEntry } from './syntax-dictionary';

const CSETS: Record<AiComponent['cset'], { test: RegExp; name: string }> = {
  N: { test: /^\d*$/, name: 'digits only' },
  X: { test: new RegExp(`^[${CSET82.replace(/[\]\\^-]/g, '\\$&')}]*$`), name: "characters of GS1's 82-character set (CSET 82)" },
  Y: { test: /^[#\-/0-9A-Z]*$/, name: "characters of GS1's 39-character set (CSET 39)" },
  Z: { test: /^[A-Za-z0-9_-]*={0,2}$/, name: "characters of GS1's 64-character set (CSET 64, base64url)" },
};

/** The dictionary entry of `ai`, or GS1_UNKNOWN_AI naming `field`. */
export function knownAi(ai: unknown, field: string): AiEntry {
  const entry = typeof ai === 'string' && /^\d{2,4}$/.test(ai) ? gs1Dictionary().get(ai) : undefined;
  if (!entry) throw new Gs1Error('GS1_UNKNOWN_AI', field, `${JSON.stringify(ai)} is not a GS1 Application Identifier`);
  return entry;
}

/** A human label for messages: `(10) BATCH/LOT`. */
export const aiLabel = (entry: AiEntry) => `(${entry.ai}) ${entry.title}`.trim();

/**
 * Checks `value` against the AI's specification, component by component as the dictionary describes: fixed
 * components take their length, the variable last one the rest, optional ones may be left out at the end; then each
 * part's character set and linters. Throws a Gs1Error naming `field`.
 */
export function checkAiValue(entry: AiEntry, value: unknown, field: string): void {
  const fail = (code: Gs1Code, why: string): never => {
    throw new Gs1Error(code, field, `AI ${aiLabel(entry)}: ${why}`);
  };
  if (typeof value !== 'string' || value === '') return fail('GS1_VALUE_FORMAT', 'the value must be a non-empty string');
  const maxTotal = entry.components.reduce((n, c) => n + c.max, 0);
  const minTotal = entry.components.reduce((n, c) => n + (c.optional ? 0 : c.min), 0);
  const lengthRule = minTotal === maxTotal ? `exactly ${maxTotal}` : `${minTotal} to ${maxTotal}`;
  // Too long is a length error before any component's check runs on a slice of it (a 15-digit GTIN is not a
  // wrong check digit of its first 14).
  if (value.length > maxTotal) fail('GS1_VALUE_FORMAT', `the value must have ${lengthRule} characters`);
  let pos = 0;
  for (const component of entry.components) {
    if (pos === value.length && component.optional) break;
    const part = value.slice(pos, pos + component.max);
    if (part.length < component.min) fail('GS1_VALUE_FORMAT', `the value must have ${lengthRule} characters`);
    pos += part.length;
    const cset = CSETS[component.cset];
    if (!cset.test.test(part)) fail('GS1_VALUE_FORMAT', `the value must use ${cset.name}`);
    for (const linter of component.linters) {
      const problem = runLinter(linter, part);
      if (problem) fail(problem.code, `'${part}' ${problem.reason}`);
    }
  }
  if (pos < value.length) fail('GS1_VALUE_FORMAT', `the value must have ${lengthRule} characters`);
}
