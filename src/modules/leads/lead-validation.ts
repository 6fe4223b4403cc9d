import { isEmail } from 'class-validator';
import { normalizePhone } from '../targets/fields';
import { CONSENT_FIELD, FIELD_MAX_LENGTH, FormDefinition, FormField, FormState, HONEYPOT_FIELD } from '../hosted-pages/form-page';

/** A stored lead value: text as typed (trimmed), phone normalized, number as a number, checkbox as a boolean;
 * null for an optional field left empty. */
export type LeadValue = string | number | boolean | null;

export type LeadCheck =
  /** The honeypot was filled: answer as if stored, store nothing. */
  | { outcome: 'bot' }
  /** Re-render the form (400) with these values and errors. */
  | { outcome: 'invalid'; state: FormState }
  | { outcome: 'valid'; fields: Record<string, LeadValue> };

// NUL cannot be stored in jsonb; other C0 controls (except tab and line breaks) have no business in a form value.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

/** A posted value as one string (the first of repeated keys, '' for anything else), line breaks as LF: browsers
 * submit a textarea's line breaks as CRLF. */
function posted(body: Record<string, unknown>, name: string): string {
  const raw = Object.prototype.hasOwnProperty.call(body, name) ? body[name] : undefined;
  const first = Array.isArray(raw) ? raw[0] : raw;
  return typeof first === 'string' ? first.replace(/\r\n?/g, '\n') : '';
}

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** What a ticked checkbox posts: the page renders value="yes"; "on" is what a browser sends for one without a value,
 * and "true"/"1" what a scripted client may send. Anything else ("no", "false", "0", "off", …) is not ticked. */
const TICKED = new Set(['yes', 'on', 'true', '1']);
const isTicked = (raw: string): boolean => TICKED.has(raw.trim().toLowerCase());

/** One field's stored value, or the message shown under it. */
function check(f: FormField, raw: string): { value: LeadValue } | { error: string } {
  if (CONTROL.test(raw)) return { error: 'Remove the invisible control characters from this field.' };
  if (f.type === 'checkbox') {
    const ticked = isTicked(raw);
    return f.required && !ticked ? { error: 'Tick this box to continue.' } : { value: ticked };
  }
  const s = f.type === 'textarea' ? raw.replace(/^\s+|\s+$/g, '') : raw.trim();
  if (s === '') return f.required ? { error: 'This field is required.' } : { value: null };
  if (s.length > FIELD_MAX_LENGTH) return { error: `Use at most ${FIELD_MAX_LENGTH} characters.` };
  switch (f.type) {
    case 'email':
      return isEmail(s) ? { value: s } : { error: 'Enter an e-mail address such as name@example.com.' };
    case 'phone': {
      const phone = normalizePhone(s);
      return phone ? { value: phone } : { error: 'Enter a phone number: 6 to 15 digits, with an optional leading +.' };
    }
    case 'number': {
      const n = Number(s);
      return /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s) && Number.isFinite(n) ? { value: n } : { error: 'Enter a number.' };
    }
    case 'date':
      return isDate(s) ? { value: s } : { error: 'Enter a date as YYYY-MM-DD.' };
    default:
      return { value: s };
  }
}

/**
 * Checks a form post against the form's fields: the honeypot first (a bot gets the usual answer and nothing is
 * stored), then every field by its type and `required`, then the consent checkbox. Unknown posted keys are ignored.
 */
export function checkLead(form: FormDefinition, body: Record<string, unknown>): LeadCheck {
  if (posted(body, HONEYPOT_FIELD).trim() !== '') return { outcome: 'bot' };
  const values: Record<string, string> = {};
  const errors: Record<string, string> = {};
  const fields: Record<string, LeadValue> = {};
  for (const f of form.fields) {
    const raw = posted(body, f.name);
    // A checkbox is shown again ticked only if it was ticked ("no" is not).
    values[f.name] = f.type === 'checkbox' ? (isTicked(raw) ? 'yes' : '') : raw.replace(CONTROLS, '').slice(0, FIELD_MAX_LENGTH * 2);
    const result = check(f, raw);
    if ('error' in result) errors[f.name] = result.error;
    else fields[f.name] = result.value;
  }
  const consent = isTicked(posted(body, CONSENT_FIELD));
  if (consent) values[CONSENT_FIELD] = 'yes';
  else errors[CONSENT_FIELD] = 'Tick this box to agree before sending the form.';
  return Object.keys(errors).length ? { outcome: 'invalid', state: { values, errors } } : { outcome: 'valid', fields };
}
