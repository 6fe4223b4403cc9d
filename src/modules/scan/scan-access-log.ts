/** One request the hot path answered, as its access record sees it (no IP, no headers, no query string). */
export interface AccessRecord {
  request_id: string;
  method: string;
  path: string;
  status: number;
  ms: number;
}

/** What the hot path reports each answer to (only built when the access log is on). */
export interface ScanAccessLog {
  record(method: string, path: string, status: number, requestId: string, started: number): void;
  /** The path to record for a one-segment URL that is not a short code. */
  otherPath(url: string): string;
  /** Writes what is still counted (on shutdown). */
  stop?(): void;
}

/** One line per request: LOG_LEVEL=debug (or trace), for troubleshooting. Costs about a third of a redirect. */
export class PerRequestAccessLog implements ScanAccessLog {
  constructor(private readonly write: (line: AccessRecord) => void) {}

  otherPath(url: string): string {
    return url.split('?')[0];
  }

  record(method: string, path: string, status: number, requestId: string, started: number): void {
    this.write({ request_id: requestId, method, path, status, ms: Math.round(performance.now() - started) });
  }
}

/** The summary line written every ACCESS_SUMMARY_INTERVAL_MS while requests arrive. */
export interface AccessSummaryLine {
  msg: 'scan access summary';
  /** Length of the window the counts cover, in ms. */
  window_ms: number;
  requests: number;
  /** Answers per HTTP status. */
  statuses: Record<string, number>;
  /** Slowest answer of the window. */
  max_ms: number;
  /** Per path (`/{short_code}`, `/{short_code}.vcf`, …), method and status, busiest first, at most ACCESS_SUMMARY_ROWS. */
  paths: { path: string; method: string; status: number; count: number; max_ms: number }[];
  /** Requests of rows left out of `paths` (beyond ACCESS_SUMMARY_ROWS, or beyond ACCESS_SUMMARY_KEYS distinct rows). */
  other: number;
}

export const ACCESS_SUMMARY_INTERVAL_MS = 10_000;
/** Rows written per summary line. */
export const ACCESS_SUMMARY_ROWS = 100;
/** Distinct path/method/status rows counted per window; requests beyond go to `other` (memory stays bounded). */
const ACCESS_SUMMARY_KEYS = 10_000;

interface Row {
  path: string;
  method: string;
  status: number;
  count: number;
  max: number;
}

/**
 * The default (LOG_LEVEL=info) access record of the hot path: counts per path, method and status, written as one
 * line every ACCESS_SUMMARY_INTERVAL_MS (and when the process stops). A line per redirect cost about a third of the
 * scan host's throughput (serializing and writing 10,000 JSON lines a second, plus whatever reads stdout); a count
 * is a map lookup. Paths that are not a short code (`/`, a mistyped URL) are counted as one `/*` row so that
 * random paths cannot grow the map. Requests Nest answers keep their line per request.
 */
export class ScanAccessSummary implements ScanAccessLog {
  /** Per path, its rows (one per method and status: one or two for a short code). Keyed by the path alone, so a
   * request costs no key string and hashes only its short path. */
  private rows = new Map<string, Row[]>();
  private keys = 0;
  private requests = 0;
  private other = 0;
  private windowStart = Date.now();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly write: (line: AccessSummaryLine) => void,
    private readonly intervalMs = ACCESS_SUMMARY_INTERVAL_MS,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /** Writes what is counted and stops the timer. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.flush();
  }

  /** One `/*` row for all of them: random paths must not grow the map. */
  otherPath(): string {
    return '/*';
  }

  record(method: string, path: string, status: number, _requestId: string, started: number): void {
    const ms = performance.now() - started;
    this.requests++;
    let rows = this.rows.get(path);
    let row: Row | undefined;
    if (rows) {
      for (let i = 0; i < rows.length; i++) {
        if (rows[i].status === status && rows[i].method === method) {
          row = rows[i];
          break;
        }
      }
    }
    if (!row) {
      if (this.keys >= ACCESS_SUMMARY_KEYS) {
        this.other++;
        return;
      }
      row = { path, method, status, count: 0, max: 0 };
      if (rows) rows.push(row);
      else this.rows.set(path, (rows = [row]));
      this.keys++;
    }
    row.count++;
    if (ms > row.max) row.max = ms;
  }

  /** Writes the window's line (nothing when no request arrived) and starts a new window. */
  flush(): void {
    const now = Date.now();
    if (this.requests > 0) this.write(this.summary(now - this.windowStart));
    this.rows = new Map();
    this.keys = 0;
    this.requests = 0;
    this.other = 0;
    this.windowStart = now;
  }

  private summary(windowMs: number): AccessSummaryLine {
    const rows = [...this.rows.values()].flat().sort((a, b) => b.count - a.count);
    const statuses: Record<string, number> = {};
    let maxMs = 0;
    for (const r of rows) {
      statuses[r.status] = (statuses[r.status] ?? 0) + r.count;
      if (r.max > maxMs) maxMs = r.max;
    }
    let other = this.other;
    for (const r of rows.slice(ACCESS_SUMMARY_ROWS)) other += r.count;
    return {
      msg: 'scan access summary',
      window_ms: windowMs,
      requests: this.requests,
      statuses,
      max_ms: Math.round(maxMs),
      paths: rows.slice(0, ACCESS_SUMMARY_ROWS).map((r) => ({ path: r.path, method: r.method, status: r.status, count: r.count, max_ms: Math.round(r.max) })),
      other,
    };
  }
}
