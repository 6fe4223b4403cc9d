import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { Design, storedDesign } from '../rendering/design';
import { Template } from './template.entity';

export const TEMPLATE_ID = /^tpl_[0-9A-Za-z]+$/;

/** The design of a template of the workspace in the key's environment, for codes and batches created from it (a copy:
 * later edits of the template change nothing already created). Unknown, foreign or other-environment ids: 404 on
 * `template_id`. */
export async function templateDesign(
  em: EntityManager,
  scope: Pick<AuthContext, 'organizationId' | 'environment'>,
  id: string,
): Promise<{ design: Design; namesErrorCorrection: boolean }> {
  const template = TEMPLATE_ID.test(id)
    ? await em.findOne(Template, { id, organizationId: scope.organizationId, environment: scope.environment })
    : null;
  if (!template) throw new ApiException('not_found', `No such template: '${id}'`, { field: 'template_id' });
  return { design: storedDesign(template.design), namesErrorCorrection: namesErrorCorrection(template.design) };
}

/**
 * Whether the template's design was given its error correction level (at creation or in a PATCH) rather than left to
 * the default: a code made from it then keeps that level when the code's own design adds a logo (without one named
 * anywhere, a logo picks `H`). Kept in the stored design as `error_correction_named`, which no answer shows; templates
 * stored before it count as not named.
 */
export function namesErrorCorrection(stored: unknown): boolean {
  return typeof stored === 'object' && stored !== null && (stored as { error_correction_named?: unknown }).error_correction_named === true;
}

/** The design a template stores: the normalized design and whether its error correction level was named. */
export function templateStoredDesign(design: Design, named: boolean): object {
  return named ? { ...design, error_correction_named: true } : design;
}
