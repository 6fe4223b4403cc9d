import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { Matches, ValidateIf } from 'class-validator';
import { ApiException } from './api.exception';
import { assertCleanStrings } from './input-rules';

interface Flat {
  path: string;
  messages: string[];
}

const TYPE_CHECKS = new Set(['isString', 'isBoolean', 'isInt', 'isNumber', 'isArray', 'isObject', 'isDefined', 'nestedValidation']);

function flatten(errors: ValidationError[], parent = ''): Flat[] {
  const out: Flat[] = [];
  for (const e of errors) {
    const path = parent ? (/^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`) : e.property;
    if (e.constraints) {
      // The most basic failure first: an unknown field, then a wrong type, then a length or format.
      // (Among the type checks, "must be an array" before what each item must be: `items: "x"` is not an array.)
      const rank = (key: string) => (key === 'whitelistValidation' ? 0 : key === 'isArray' ? 0.5 : TYPE_CHECKS.has(key) ? 1 : 2);
      const entries = Object.entries(e.constraints).sort(([a], [b]) => rank(a) - rank(b));
      const messages = entries.map(([key, msg]) =>
        key === 'whitelistValidation' ? `Unknown field '${path}'` : msg.replace(new RegExp(`^${e.property}\\b`), path),
      );
      out.push({ path, messages });
    }
    if (e.children?.length) out.push(...flatten(e.children, path));
  }
  return out;
}

/** Turns class-validator errors into one 400 `invalid_request` naming every offending field. */
export function validationException(errors: ValidationError[]): ApiException {
  const flat = flatten(errors);
  const fields = [...new Set(flat.map((f) => f.path))];
  const message = flat.map((f) => f.messages[0]).join('; ') || 'Invalid request';
  return ApiException.invalid(fields[0], message, fields);
}

/** The global pipe: the string rule (input-rules.ts) on every body, query string and path parameter, then
 * class-validator. */
class ApiValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'custom') assertCleanStrings(value, metadata.data ?? '', { singleLineFields: true });
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      throw metadata.type === 'query' ? sayRepeated(err, value) : err;
    }
  }
}

/** A query parameter given twice (`limit=1&limit=2`) reaches validation as an array: "limit must be a string" would
 * puzzle whoever sent two strings, so the message says what is wrong. */
function sayRepeated(err: unknown, query: unknown): unknown {
  if (!(err instanceof ApiException) || !query || typeof query !== 'object') return err;
  for (const [key, v] of Object.entries(query)) {
    if (Array.isArray(v)) err.message = err.message.split(`${key} must be a string`).join(`${key} must be given once, not ${v.length} times`);
  }
  return err;
}

export function createValidationPipe(): ValidationPipe {
  return new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: validationException,
  });
}

/**
 * An optional property: validation is skipped only when it is absent. Unlike class-validator's @IsOptional(), an
 * explicit `null` is validated and so refused by the type checks (400 naming the field) instead of reaching the service
 * as a value. Keep `@IsOptional() @ValidateIf((_, v) => v !== null)` for properties where null means something
 * (clearing a description, un-filing a code).
 */
export const IsOmittable = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined);

/** A string holding more than white space (names: `"   "` is refused as blank, naming the field). */
export const NotBlank = (field = 'name'): PropertyDecorator => Matches(/\S/, { message: `${field} must not be blank` });
