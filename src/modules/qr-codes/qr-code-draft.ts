import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import type { CreateGs1QrCodeDto } from '../gs1/gs1.dto';
import type { CreateQrCodeDto } from './dto/qr-code.dto';
import { assertEntitled } from './qr-code-limits';
import type { QrKind } from './qr-code.entity';
import { FieldReader } from '../targets/fields';
import { gs1Kind } from '../gs1/gs1-kind';
import { handlerFor, parseTarget, STATIC_CAPABLE_TYPES } from '../targets/registry';
import type { TargetContext } from '../targets/target-handler';

/** What a creation body's type rules make of it (the target part of a new code's draft). */
export interface TargetDraft {
  kind: QrKind;
  type: string;
  target: Record<string, unknown>;
  /** the GS1 identifier unique per host (dynamic GS1 codes), else null */
  gs1Key: string | null;
  /** unnamed codes are named after what they encode (GS1: the Digital Link URI, also the linkset's itemDescription) */
  namedAfterPayload?: boolean;
}

/** Validates a creation body (standard or GS1) up to the folder, plan counts and uniqueness (a target naming an uploaded
 * file is looked up through `ctx`). Single
 * creation and batch items both come through here. */
export async function targetDraft(auth: AuthContext, body: CreateQrCodeDto | CreateGs1QrCodeDto, ctx: TargetContext): Promise<TargetDraft> {
  return gs1Kind.ownsBody(body) ? gs1Draft(auth, body) : standardDraft(auth, body, ctx);
}

/** A standard body: its target type's rules (parse, then resolve for targets naming another object, such as a file). */
async function standardDraft(auth: AuthContext, body: CreateQrCodeDto, ctx: TargetContext): Promise<TargetDraft> {
  const kind = body.type ?? 'dynamic';
  gs1Kind.refuseAsTarget(body.target?.type);
  const handler = handlerFor(body.target.type);
  if (kind === 'static' && !handler.staticCapable) {
    throw ApiException.invalid('type', `${handler.type} codes are dynamic only; type 'static' is honoured for ${STATIC_CAPABLE_TYPES.join(', ')}`);
  }
  if (kind === 'dynamic') assertEntitled(auth, 'dynamic');
  return { kind, type: handler.type, target: await parseTarget(handler, new FieldReader(body.target), kind, ctx), gs1Key: null };
}

/** A GS1 body (docs/gs1.md): the identifier is checked before the plan, so a bad one is 400 on every plan. */
function gs1Draft(auth: AuthContext, body: CreateGs1QrCodeDto): TargetDraft {
  const draft = gs1Kind.draft(body);
  if (draft.kind === 'dynamic') assertEntitled(auth, gs1Kind.planCount);
  return { kind: draft.kind, type: gs1Kind.type, target: { ...draft.target }, gs1Key: draft.gs1Key, namedAfterPayload: true };
}
