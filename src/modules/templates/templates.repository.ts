import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { ApiException } from '../../common/errors/api.exception';
import { Design, storedDesign } from '../rendering/design';
import { Template } from './template.entity';

export const TEMPLATE_ID = /^tpl_[0-9A-Za-z]+$/;

/** The design of a template of the workspace in the key's environment, for codes and batches created from it (a copy:
 * later edits of the template change nothing already created). Unknown, foreign or other-environment ids: 404 on
 * `template_id`. */
export async function templateDesign(em: EntityManager, scope: Pick<AuthContext, 'organizationId' | 'environment'>, id: string): Promise<Design> {
  const template = TEMPLATE_ID.test(id)
    ? await em.findOne(Template, { id, organizationId: scope.organizationId, environment: scope.environment })
    : null;
  if (!template) throw new ApiException('not_found', `No such template: '${id}'`, { field: 'template_id' });
  return storedDesign(template.design);
}
