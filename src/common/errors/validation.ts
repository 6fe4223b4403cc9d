import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiException } from './api.exception';

interface Flat {
  path: string;
  messages: string[];
}

function flatten(errors: ValidationError[], parent = ''): Flat[] {
  const out: Flat[] = [];
  for (const e of errors) {
    const path = parent ? (/^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`) : e.property;
    if (e.constraints) {
      const messages = Object.entries(e.constraints).map(([key, msg]) =>
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

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: validationException,
  });
}
