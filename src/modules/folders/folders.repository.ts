import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuthContext } from '../../common/auth/auth-context';
import { Folder } from './folder.entity';

/** True when the workspace has this folder in the key's environment (other modules check a folder_id through this). */
export async function folderExists(em: EntityManager, scope: Pick<AuthContext, 'organizationId' | 'environment'>, id: string): Promise<boolean> {
  return (await em.count(Folder, { id, organizationId: scope.organizationId, environment: scope.environment })) > 0;
}
