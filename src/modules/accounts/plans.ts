import { readFileSync } from 'node:fs';
import { PLAN_IDS, type Plan, type PlanId } from '../../common/auth/plan';
import { ConfigError } from '../../common/config/config';

/** The only place plan limits live (the README "Plans" table). PLANS_FILE may override any figure. */
const GB = 1024 ** 3;

const DEFAULT_PLANS: Record<PlanId, Omit<Plan, 'id'>> = {
  free: { dynamic_qr_limit: 0, gs1_limit: 0, batches: false, custom_domains: 0, monthly_requests: 50, requests_per_minute: 10, active_keys: 1, storage_bytes: 0, files: 0, seats: 1 },
  plus: { dynamic_qr_limit: 250, gs1_limit: 50, batches: true, custom_domains: 1, monthly_requests: null, requests_per_minute: 60, active_keys: 10, storage_bytes: GB, files: 1_000, seats: 3 },
  pro: { dynamic_qr_limit: 1000, gs1_limit: 250, batches: true, custom_domains: 3, monthly_requests: null, requests_per_minute: 120, active_keys: 25, storage_bytes: 10 * GB, files: 10_000, seats: 10 },
  ultra: { dynamic_qr_limit: 5000, gs1_limit: 1000, batches: true, custom_domains: 10, monthly_requests: null, requests_per_minute: 300, active_keys: 50, storage_bytes: 50 * GB, files: 50_000, seats: 25 },
  agency: { dynamic_qr_limit: 25000, gs1_limit: 5000, batches: true, custom_domains: 50, monthly_requests: null, requests_per_minute: 600, active_keys: 100, storage_bytes: 250 * GB, files: 250_000, seats: null },
};

const KEY_CHECKS: Record<keyof Omit<Plan, 'id'>, (v: unknown) => boolean> = {
  dynamic_qr_limit: (v) => Number.isInteger(v) && (v as number) >= 0,
  gs1_limit: (v) => Number.isInteger(v) && (v as number) >= 0,
  batches: (v) => typeof v === 'boolean',
  custom_domains: (v) => Number.isInteger(v) && (v as number) >= 0,
  monthly_requests: (v) => v === null || (Number.isInteger(v) && (v as number) >= 0),
  requests_per_minute: (v) => Number.isInteger(v) && (v as number) > 0,
  active_keys: (v) => Number.isInteger(v) && (v as number) > 0,
  storage_bytes: (v) => Number.isSafeInteger(v) && (v as number) >= 0,
  files: (v) => Number.isInteger(v) && (v as number) >= 0,
  seats: (v) => v === null || (Number.isInteger(v) && (v as number) > 0),
};

export type PlanCatalog = Record<PlanId, Plan>;

export function loadPlans(file?: string): PlanCatalog {
  let overrides: Record<string, Record<string, unknown>> = {};
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new ConfigError(`PLANS_FILE ${file} cannot be read: ${(e as Error).message}`);
    }
    try {
      overrides = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(`PLANS_FILE ${file} is not valid JSON: ${(e as Error).message}`);
    }
    if (!overrides || typeof overrides !== 'object' || Array.isArray(overrides)) {
      throw new ConfigError(`PLANS_FILE ${file} must hold an object keyed by plan id`);
    }
    for (const [planId, figures] of Object.entries(overrides)) {
      if (!(PLAN_IDS as readonly string[]).includes(planId)) {
        throw new ConfigError(`PLANS_FILE ${file}: unknown plan "${planId}" (expected one of ${PLAN_IDS.join(', ')})`);
      }
      if (!figures || typeof figures !== 'object' || Array.isArray(figures)) {
        throw new ConfigError(`PLANS_FILE ${file}: "${planId}" must be an object`);
      }
      for (const [key, value] of Object.entries(figures)) {
        // Own keys only: `constructor`, `toString` or `__proto__` are unknown keys, not Object.prototype's members.
        const check = Object.hasOwn(KEY_CHECKS, key) ? KEY_CHECKS[key as keyof typeof KEY_CHECKS] : undefined;
        if (!check) throw new ConfigError(`PLANS_FILE ${file}: unknown key "${planId}.${key}"`);
        if (!check(value)) throw new ConfigError(`PLANS_FILE ${file}: bad value for "${planId}.${key}": ${JSON.stringify(value)}`);
      }
    }
  }
  const catalog = {} as PlanCatalog;
  for (const id of PLAN_IDS) catalog[id] = { id, ...DEFAULT_PLANS[id], ...(overrides[id] ?? {}) } as Plan;
  return catalog;
}

export const PLAN_CATALOG = Symbol('PLAN_CATALOG');
