import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ApiException } from '../../../common/errors/api.exception';
import { validationException } from '../../../common/errors/validation';
import { gs1Kind } from '../../gs1/gs1-kind';
import { CreateGs1QrCodeDto } from '../../gs1/gs1.dto';
import { CreateQrCodeDto } from './qr-code.dto';

/**
 * A `POST /v1/qr-codes` body (also a batch item): a standard body, or a GS1 body when `type` is `gs1`. Checked like the
 * global validation pipe checks a DTO (unknown fields, types), with the DTO its `type` selects.
 */
export async function parseCreateBody(raw: unknown): Promise<CreateQrCodeDto | CreateGs1QrCodeDto> {
  // No body at all (an empty one with Content-Type: application/json too) is `{}`: the answer names the missing fields.
  if (raw === undefined) raw = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw ApiException.invalid(undefined, 'The body must be a JSON object');
  const dto: CreateQrCodeDto | CreateGs1QrCodeDto =
    gs1Kind.ownsBody(raw)
      ? plainToInstance(CreateGs1QrCodeDto, raw, { enableImplicitConversion: false })
      : plainToInstance(CreateQrCodeDto, raw, { enableImplicitConversion: false });
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } });
  if (errors.length) throw validationException(errors);
  return dto;
}
