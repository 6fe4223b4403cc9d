/** A workspace's plan as every request sees it in its AuthContext. The figures live in modules/accounts/plans.ts. */
export const PLAN_IDS = ['free', 'plus', 'pro', 'ultra', 'agency'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  id: PlanId;
  dynamic_qr_limit: number;
  gs1_limit: number;
  batches: boolean;
  custom_domains: number;
  /** null = unmetered */
  monthly_requests: number | null;
  requests_per_minute: number;
  active_keys: number;
  /** bytes of uploaded files a workspace may hold (test and live together); 0 = no uploads */
  storage_bytes: number;
  /** uploaded files a workspace may hold (test and live together) */
  files: number;
  /** Members and pending invitations of a workspace; null = unlimited. */
  seats: number | null;
}

/** Scopes whose routes the free plan may not use (403 plan_restricted). */
export const FREE_RESTRICTED_SCOPES = ['analytics:read', 'webhooks:read', 'webhooks:write'];
