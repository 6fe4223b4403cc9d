/** What a workspace's stored data takes, as `GET /v1/me` reports it (`usage`). The figures live in modules above
 * accounts (uploaded files), so accounts defines the interface and src/app binds the source (api.module.ts). */
export interface WorkspaceUsage {
  /** bytes of uploaded files, test and live together */
  storage_bytes: number;
  /** uploaded files, test and live together */
  files: number;
}

export interface WorkspaceUsageSource {
  usage(organizationId: string): Promise<WorkspaceUsage>;
}

export const WORKSPACE_USAGE = Symbol('WORKSPACE_USAGE');
