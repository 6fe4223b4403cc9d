/**
 * bench:webhooks — webhook delivery throughput and event-to-first-attempt latency against a loopback receiver.
 * One worker process (the real WorkerModule: NOTIFY listener, Bull processor, sweeper) delivers to a node:http receiver
 * on 127.0.0.1. Goals: ≥ 500 deliveries/s; event-to-first-attempt p50 ≤ 500 ms.
 *  1. latency: events emitted one at a time (each in its own transaction, 20 ms apart) to one endpoint; latency is the
 *     receiver's arrival time minus the envelope's created_at (same clock).
 *  2. throughput: BENCH_EVENTS events × BENCH_ENDPOINTS endpoints are emitted while the processor is paused, then it
 *     resumes; the figure is deliveries recorded `succeeded` in the database per second (the receiver's count too).
 */
import 'reflect-metadata';
import { MikroORM, EntityManager } from '@mikro-orm/postgresql';
import { createWorkerApp } from '../src/app/bootstrap';
import { loadConfig } from '../src/common/config/config';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';
import { EventsService } from '../src/modules/events/events.service';
import { TestReceiver, waitFor } from '../src/modules/webhooks/testing/receiver';
import { WebhookDeliveryService } from '../src/modules/webhooks/webhook-delivery.service';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { QUEUES } from '../src/common/queue/queues';
import { DELIVERY_CONCURRENCY } from '../src/modules/webhooks/webhook-delivery.processor';
import { fmt, percentile } from './lib';

const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 200);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const ENDPOINTS = Number(process.env.BENCH_ENDPOINTS ?? 10);

async function main() {
  const config = loadConfig({ ...process.env, WEBHOOK_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'silent' });
  const rx = await new TestReceiver().start();
  const worker = await createWorkerApp(config, { logLevel: 'silent' });
  const orm = worker.get(MikroORM);
  const em = () => orm.em.fork() as unknown as EntityManager;
  const accounts = new AccountsService(em(), loadPlans(config.plansFile));
  const events = worker.get(EventsService, { strict: false });
  const deliveries = worker.get(WebhookDeliveryService, { strict: false });

  async function workspace(name: string, urls: string[], types: string[]): Promise<string> {
    const org = await accounts.createOrganization({ name, plan: 'agency', email: 'bench@example.com' });
    for (const url of urls) {
      await em().execute(
        `insert into webhook_endpoints (id, organization_id, url, events, secret_enc) values (?, ?, ?, ?::text[], ?)`,
        [`we_bench${Math.random().toString(36).slice(2, 14)}`, org.id, url, `{${types.join(',')}}`, deliveries.secrets.seal('whsec_bench')],
      );
    }
    return org.id;
  }
  /** Bench workspaces' endpoints and events are live. */
  const live = (organizationId: string) => ({ organizationId, environment: 'live' as const });

  // Warm-up: connections, JIT, Bull scripts.
  const warm = await workspace('Warm-up', [rx.url('/warm')], ['*']);
  for (let i = 0; i < 50; i++) await em().transactional((tx) => events.emit(tx, live(warm), 'qr.updated', { i }));
  await waitFor(() => rx.forPath('/warm').length >= 50, 'warm-up deliveries', 60_000);

  // 1. Event-to-first-attempt latency.
  const latOrg = await workspace('Latency', [rx.url('/latency')], ['qr.scanned']);
  const latencies: number[] = [];
  rx.onRequest = (r) => {
    if (r.path === '/latency') latencies.push(r.at - Date.parse(JSON.parse(r.body).created_at));
  };
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    await em().transactional((tx) => events.emit(tx, live(latOrg), 'qr.scanned', { qr_code_id: 'qr_bench', n: i }));
    await new Promise((r) => setTimeout(r, 20));
  }
  await waitFor(() => latencies.length >= LATENCY_EVENTS, 'latency deliveries', 60_000);
  latencies.sort((a, b) => a - b);

  // 2. Throughput. The burst is emitted while this worker's processor is paused (jobs pile up in Bull through NOTIFY),
  //    then the processor resumes: the drain rate is the delivery rate, not the emitters' commit rate.
  const queue = worker.get<Queue>(getQueueToken(QUEUES.webhookDeliveries), { strict: false });
  const urls = Array.from({ length: ENDPOINTS }, (_, i) => rx.url(`/burst/${i}`));
  const burstOrg = await workspace('Burst', urls, ['*']);
  const total = EVENTS * ENDPOINTS;
  let received = 0;
  let lastReceivedAt = 0;
  rx.onRequest = (r) => {
    if (r.path.startsWith('/burst/')) {
      received++;
      lastReceivedAt = Date.now();
    }
  };
  await queue.pause(true);
  const emitStarted = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < EVENTS) {
        const i = next++;
        await em().transactional((tx) => events.emit(tx, live(burstOrg), 'qr.created', { id: `qr_${i}`, name: `Code ${i}` }));
      }
    }),
  );
  const emittedMs = Date.now() - emitStarted;
  await waitFor(async () => (await queue.getWaitingCount()) >= total, 'all jobs queued', 60_000, 50);
  const started = Date.now();
  await queue.resume(true);
  const succeeded = async () =>
    Number(
      (
        await em().execute<{ n: string }[]>(`select count(*) as n from webhook_deliveries where organization_id = ? and status = 'succeeded'`, [
          burstOrg,
        ])
      )[0].n,
    );
  await waitFor(async () => (await succeeded()) >= total, 'all burst deliveries recorded', 300_000, 50);
  const recordedMs = Date.now() - started;
  const receivedMs = lastReceivedAt - started;
  const [failed] = await em().execute<{ n: string }[]>(
    `select count(*) as n from webhook_deliveries where organization_id = ? and status <> 'succeeded'`,
    [burstOrg],
  );

  const lines = [
    `bench:webhooks (one worker, loopback receiver, concurrency ${DELIVERY_CONCURRENCY})`,
    `event-to-first-attempt latency (${LATENCY_EVENTS} events, one at a time):`,
    `  p50 ${fmt(percentile(latencies, 50))}  p95 ${fmt(percentile(latencies, 95))}  p99 ${fmt(percentile(latencies, 99))}  max ${fmt(latencies[latencies.length - 1])}`,
    `throughput (${EVENTS} events × ${ENDPOINTS} endpoints = ${total} deliveries):`,
    `  emit (4 concurrent transactions, ${ENDPOINTS} delivery rows + NOTIFY each): ${emittedMs} ms → ${Math.round((EVENTS * 1000) / emittedMs)} events/s`,
    `  received by the receiver: ${received} in ${receivedMs} ms → ${Math.round((received * 1000) / receivedMs)} deliveries/s`,
    `  recorded succeeded in the database: ${total} in ${recordedMs} ms → ${Math.round((total * 1000) / recordedMs)} deliveries/s`,
    `  not succeeded: ${failed.n}; duplicate POSTs: ${received - total}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await worker.close();
  await rx.stop();
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
