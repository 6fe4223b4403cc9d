import { isISO8601, isRFC3339 } from 'class-validator';
import { ApiException } from '../../common/errors/api.exception';

/** Small readers for the polymorphic `target` object: each names the offending field as `target.<path>`. */

export type Input = Record<string, unknown>;

export class FieldReader {
  /** `typeIsField`: `type` is a field like any other (an object inside the target, made by object() and array(), or a
   * body that is not a target); otherwise the reader is a target's top level, whose `type` was read already. */
  constructor(
    readonly input: Input,
    readonly path = 'target',
    readonly typeIsField = false,
  ) {}

  field(key: string): string {
    return this.path ? `${this.path}.${key}` : key;
  }

  fail(key: string, message: string): never {
    throw ApiException.invalid(this.field(key), `${this.field(key)} ${message}`);
  }

  has(key: string): boolean {
    return this.input[key] !== undefined && this.input[key] !== null;
  }

  /** Refuses fields outside `allowed`, besides a target's own `type` at its top level (see typeIsField). */
  only(allowed: string[]): void {
    for (const key of Object.keys(this.input)) {
      if ((key !== 'type' || this.typeIsField) && !allowed.includes(key)) {
        throw ApiException.invalid(this.field(key), `Unknown field '${this.field(key)}'`);
      }
    }
  }

  string(key: string, opts: { required?: boolean; max: number; min?: number; trim?: boolean }): string | undefined {
    const v = this.input[key];
    if (v === undefined || v === null || (v === '' && !opts.required)) {
      if (opts.required) this.fail(key, 'is required');
      return undefined;
    }
    if (typeof v !== 'string') this.fail(key, 'must be a string');
    const s = opts.trim === false ? v : v.trim();
    const chars = characters(s);
    if (chars < (opts.min ?? (opts.required ? 1 : 0))) this.fail(key, opts.required && !s ? 'is required' : `must be at least ${opts.min} characters`);
    if (chars > opts.max) this.fail(key, `must be at most ${opts.max} characters`);
    return s;
  }

  url(key: string, opts: { required?: boolean } = {}): string | undefined {
    const s = this.string(key, { required: opts.required, max: 2048 });
    if (s === undefined) return undefined;
    return checkHttpUrl(s, this.field(key));
  }

  number(key: string, opts: { required?: boolean; min: number; max: number }): number | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) {
      if (opts.required) this.fail(key, 'is required');
      return undefined;
    }
    // A JSON number: a string is refused, as `"12"`, `" 12 "` or `"0x10"` would otherwise be printed as a number.
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(key, 'must be a number');
    if (v < opts.min || v > opts.max) this.fail(key, `must be between ${opts.min} and ${opts.max}`);
    return v;
  }

  /** A JSON integer (a numeric string is refused: `"3"` is not 3). */
  integer(key: string, opts: { required?: boolean; min: number; max: number }): number | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) {
      if (opts.required) this.fail(key, 'is required');
      return undefined;
    }
    if (typeof v !== 'number' || !Number.isInteger(v)) this.fail(key, `must be an integer from ${opts.min} to ${opts.max}`);
    if (v < opts.min || v > opts.max) this.fail(key, `must be an integer from ${opts.min} to ${opts.max}`);
    return v;
  }

  boolean(key: string): boolean | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') this.fail(key, 'must be a boolean');
    return v;
  }

  oneOf<T extends string>(key: string, values: readonly T[], opts: { required?: boolean } = {}): T | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) {
      if (opts.required) this.fail(key, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) this.fail(key, `must be one of ${values.join(', ')}`);
    return v as T;
  }

  /** `nullable: false`: null is refused as not an object (by default null is an omitted field). */
  object(key: string, opts: { required?: boolean; nullable?: boolean } = {}): FieldReader | undefined {
    const v = this.input[key];
    if (v === null && opts.nullable === false) this.fail(key, 'must be an object (omit it instead of null)');
    if (v === undefined || v === null) {
      if (opts.required) this.fail(key, 'is required');
      return undefined;
    }
    if (typeof v !== 'object' || Array.isArray(v)) this.fail(key, 'must be an object');
    return new FieldReader(v as Input, this.field(key), true);
  }

  array(key: string, opts: { required?: boolean; min?: number; max: number }): FieldReader[] | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) {
      if (opts.required) this.fail(key, 'is required');
      return undefined;
    }
    if (!Array.isArray(v)) this.fail(key, 'must be an array');
    if (v.length < (opts.min ?? 0)) this.fail(key, `must have at least ${opts.min} item(s)`);
    if (v.length > opts.max) this.fail(key, `must have at most ${opts.max} items`);
    return v.map((item, i) => {
      const p = `${this.field(key)}[${i}]`;
      if (!item || typeof item !== 'object' || Array.isArray(item)) throw ApiException.invalid(p, `${p} must be an object`);
      return new FieldReader(item as Input, p, true);
    });
  }

  email(key: string, opts: { required?: boolean } = {}): string | undefined {
    const s = this.string(key, { required: opts.required, max: 254 });
    if (s === undefined) return undefined;
    if (!isEmail(s)) this.fail(key, 'must be an e-mail address');
    return s;
  }

  emailList(key: string): string[] | undefined {
    const v = this.input[key];
    if (v === undefined || v === null || v === '') return undefined;
    const list = typeof v === 'string' ? v.split(',') : Array.isArray(v) ? v : null;
    if (!list) this.fail(key, 'must be an e-mail address, a comma-separated list, or an array of them');
    const out = list.map((x) => (typeof x === 'string' ? x.trim() : x)).filter((x) => x !== '');
    if (out.length > 10) this.fail(key, 'must have at most 10 addresses');
    for (const e of out) if (typeof e !== 'string' || !isEmail(e)) this.fail(key, `contains an invalid e-mail address: ${JSON.stringify(e)}`);
    return out as string[];
  }

  phone(key: string, opts: { required?: boolean } = {}): string | undefined {
    const s = this.string(key, { required: opts.required, max: 32 });
    if (s === undefined) return undefined;
    const normalized = normalizePhone(s);
    if (!normalized) this.fail(key, 'must be a phone number: digits with an optional leading +, 6 to 15 digits');
    return normalized;
  }

  dateTime(key: string, opts: { required?: boolean } = {}): string | undefined {
    const s = this.string(key, { required: opts.required, max: 40 });
    if (s === undefined) return undefined;
    // The form here; the calendar by validator.js (strict: 2026-02-30 and 24:00 are refused, not rolled over).
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$/.test(s) || !isISO8601(s, { strict: true, strictSeparator: true }) || Number.isNaN(Date.parse(s))) {
      this.fail(key, 'must be an ISO 8601 date-time such as 2026-05-01T18:00:00Z');
    }
    return new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(s) ? s : `${s}Z`).toISOString();
  }

  /** An RFC 3339 date-time (seconds and offset required, a real calendar date), as ISO 8601 UTC. An empty string is
   * refused like any other malformed value. */
  rfc3339(key: string, opts: { required?: boolean } = {}): string | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) {
      if (opts.required) this.fail(key, 'is required');
      return undefined;
    }
    const ms = typeof v === 'string' ? parseRfc3339(v) : null;
    if (ms === null) this.fail(key, 'must be an RFC 3339 date-time such as 2026-05-01T18:00:00Z or 2026-05-01T20:00:00+02:00');
    return new Date(ms).toISOString();
  }
}

/** Epoch ms of an RFC 3339 date-time, or null when it is not one: seconds and an offset required (`T` and `Z` may be
 * lower case, as RFC 3339 allows), and a real instant (validator.js, through class-validator: `isRFC3339` for the
 * form, a strict `isISO8601` for the calendar, so 2026-02-30, 24:00:00 and a leap second are refused). */
export function parseRfc3339(value: string): number | null {
  const v = value.toUpperCase();
  if (!isRFC3339(v) || !isISO8601(v, { strict: true, strictSeparator: true })) return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
}

export function isEmail(s: string): boolean {
  return /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]{2,}$/.test(s) && s.length <= 254;
}

/** `+` and 6–15 digits (E.164 length); spaces, dots, dashes and parentheses are dropped. */
export function normalizePhone(s: string): string | null {
  const trimmed = s.trim();
  if (!/^\+?[\d\s().-]+$/.test(trimmed)) return null;
  const digits = trimmed.replace(/\D/g, '');
  if (digits.length < 6 || digits.length > 15) return null;
  return trimmed.startsWith('+') ? `+${digits}` : digits;
}

/** Tab, CR, LF and the other controls: the URL parser would silently drop tab, CR and LF, but the value is also
 * written into payloads (a vCard's URL line) where a line break starts a new property. */
const URL_CONTROL = /[\u0000-\u001f\u007f]/;

export function checkHttpUrl(s: string, field: string): string {
  if (URL_CONTROL.test(s)) throw ApiException.invalid(field, `${field} must not contain line breaks, tabs or other control characters`);
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw ApiException.invalid(field, `${field} must be an absolute http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw ApiException.invalid(field, `${field} must use http or https (got ${url.protocol.replace(':', '')})`);
  }
  if (!url.hostname || (!url.hostname.includes('.') && url.hostname !== 'localhost' && !url.hostname.startsWith('['))) {
    throw ApiException.invalid(field, `${field} must name a host such as example.com`);
  }
  return s;
}

/** A URL as it can go in a Location header (percent-encoded, punycode host), or null when it is not an http(s) URL. */
export function headerSafeUrl(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Characters as a person (and PostgreSQL) counts them: code points, so an emoji is one, not two UTF-16 units. */
export function characters(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
