import type { JobOptions } from 'bull';
import { ApiException } from '../errors/api.exception';

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

/**
 * Refuses work that needs a queue while its Redis is unreachable: 503 `service_unavailable` before anything is
 * written (a row whose job could not be queued would wait for the stalled-work sweeper). Waits up to a second for a
 * connection that is still being made.
 */
export async function assertQueueReachable(queue: { client: { status: string }; isReady(): Promise<unknown> }, what: string): Promise<void> {
  if (queue.client.status === 'ready') return;
  await Promise.race([queue.isReady().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  if (queue.client.status !== 'ready') throw ApiException.unavailable(what);
}
