import type { EntityManager } from '@mikro-orm/postgresql';
import { Folder } from './folder.entity';

/** True when the workspace has this folder (other modules check a folder_id through this). */
export async function folderExists(em: EntityManager, organizationId: string, id: string): Promise<boolean> {
  return (await em.count(Folder, { id, organizationId })) > 0;
}
