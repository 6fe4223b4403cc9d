import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Every metric family of the service, in one prom-client registry per process (docs/operations.md "Metrics").
 * Counters are module-level objects, so counting needs no lookup (the scan hot path's are plain numbers); gauges whose value lives
 * elsewhere (queue depths, the scan stream) are read from sources registered by the processes when Prometheus scrapes.
 * Labels are bounded: route templates (never raw paths or ids), status classes, fixed outcome names.
 */
export const metricsRegistry = new Registry();
let defaultsOn = false;

/** Node's own metrics (event loop lag, heap, GC, CPU, handles), once per process. */
export function enableDefaultMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: metricsRegistry });
}

const registers = [metricsRegistry];

/** Requests answered by Fastify (everything but the scan hot path), by route template and status class. */
export const httpRequestDuration = new Histogram({
  name: 'scanlink_http_request_duration_seconds',
  help: 'HTTP request duration by route template and status class (scan redirects are counted, not timed)',
  labelNames: ['method', 'route', 'status_class'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
});

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Records one request; `route` is the matched template (`/v1/qr-codes/:id`), undefined when nothing matched. */
export function observeRequest(method: string, route: string | undefined, status: number, ms: number): void {
  httpRequestDuration.observe(
    { method: METHODS.has(method) ? method : 'OTHER', route: route ?? 'unmatched', status_class: `${Math.floor(status / 100)}xx` },
    ms / 1000,
  );
}

/**
 * The scan host's hot path counts with plain additions (a few ns): prom-client's own inc() measured 125-150 ns, and
 * 560-1,040 ns with a label (it hashes the labels on every call), against about 40 µs of CPU for a whole redirect.
 * Prometheus reads the totals when it scrapes (`collect`).
 */
const scanAnswers = { redirect: 0, page: 0, not_found: 0, gone: 0, unavailable: 0, error: 0 };
const scanTotals = { buffered: 0, flushed: 0 };

new Counter({
  name: 'scanlink_scan_redirects_total',
  help: 'Scan host answers on /{short_code}: redirect (302), page (hosted page or download), not_found, gone, unavailable, error',
  labelNames: ['outcome'] as const,
  registers,
  collect() {
    this.reset();
    for (const [outcome, n] of Object.entries(scanAnswers)) this.inc({ outcome }, n);
  },
});

/** One increment per answer of the scan host's hot path. */
export function countScanAnswer(status: number): void {
  switch (status) {
    case 302:
      scanAnswers.redirect++;
      break;
    case 200:
      scanAnswers.page++;
      break;
    case 404:
      scanAnswers.not_found++;
      break;
    case 410:
      scanAnswers.gone++;
      break;
    case 503:
      scanAnswers.unavailable++;
      break;
    default:
      scanAnswers.error++;
  }
}

const totalCounter = (name: string, help: string, key: keyof typeof scanTotals) =>
  new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      this.inc(scanTotals[key]);
    },
  });
totalCounter('scanlink_scans_buffered_total', 'Counted scans appended to the scan buffer', 'buffered');
totalCounter('scanlink_scans_flushed_total', 'Scans written from the scan buffer to the Redis stream', 'flushed');

/** A counted scan entered the scan buffer. */
export function countScanBuffered(n = 1): void {
  scanTotals.buffered += n;
}

/** Scans written to the stream. */
export function countScansFlushed(n: number): void {
  scanTotals.flushed += n;
}

export const scansIngested = new Counter({ name: 'scanlink_scans_ingested_total', help: 'Scans stored by the worker from the Redis stream', registers });

export const webhookDeliveries = new Counter({
  name: 'scanlink_webhook_deliveries_total',
  help: 'Webhook delivery attempts made by this process (worker deliveries, api test pings), by the delivery status after the attempt: succeeded, retrying, failed',
  labelNames: ['outcome'] as const,
  registers,
});

export const batchItems = new Counter({
  name: 'scanlink_batch_items_total',
  help: 'Batch items finished, by outcome: completed, failed',
  labelNames: ['outcome'] as const,
  registers,
});

export interface GaugeSample {
  labels?: Record<string, string>;
  value: number;
}
type GaugeSource = () => Promise<GaugeSample[]> | GaugeSample[];

/** A gauge read at scrape time from the sources a process registered (none: the family shows no samples). */
function sourcedGauge(name: string, help: string, labelNames: string[]) {
  const sources = new Set<GaugeSource>();
  new Gauge({
    name,
    help,
    labelNames,
    registers,
    async collect() {
      this.reset();
      for (const source of sources) {
        const samples = await Promise.resolve()
          .then(source)
          .catch(() => []);
        for (const s of samples) this.set(s.labels ?? {}, s.value);
      }
    },
  });
  /** Registers a source; the returned function removes it (when its process closes). */
  return (source: GaugeSource): (() => void) => {
    sources.add(source);
    return () => sources.delete(source);
  };
}

export const scanBufferSizeSource = sourcedGauge('scanlink_scan_buffer_size', 'Scans waiting in this scan process, not yet written to the stream', []);
export const scanStreamBacklogSource = sourcedGauge(
  'scanlink_scan_stream_backlog',
  'Entries in the scan stream not yet stored by a worker (each holds up to 500 scans)',
  [],
);
export const queueJobsSource = sourcedGauge('scanlink_queue_jobs', 'Bull jobs by queue and state', ['queue', 'state']);
