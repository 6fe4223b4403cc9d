import type { JobOptions } from 'bull';

/** Every Bull queue of the service. Payloads carry ids only; the worker reloads and re-checks state. */
export const QUEUES = {
  maintenance: 'maintenance',
  /** One job per batch (`batch:<id>`); the worker creates the pending items. */
  batches: 'batches',
  /** One job per delivery attempt, id `<wd_id>:<attempt>` (duplicates collapse); the database row is the truth. */
  webhookDeliveries: 'webhook-deliveries',
} as const;

/** Defaults for every job: bounded retention so Redis does not grow without limit. */
export const DEFAULT_JOB_OPTIONS: JobOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: 1000,
  removeOnFail: 5000,
};
