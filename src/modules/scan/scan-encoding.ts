import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type DaySalts, type EncodedScans, ScanEncoder } from './scan-encoder';

/** After this many thread failures the scans are encoded inline for the rest of the process's life. */
const MAX_THREAD_FAILURES = 3;

/**
 * Where the scan process encodes its counted scans: on a thread of its own (scan-encoder.thread.ts), so that the
 * visitor hash, the user agent's facts and the stream encoding of a scan are not paid on the event loop that answers
 * the next request. A batch the thread has not answered when it fails is encoded inline, as is everything after
 * MAX_THREAD_FAILURES failures: the result is the same either way, only where the CPU time is spent differs.
 */
export class ScanEncoding {
  private worker?: Worker;
  private failures = 0;
  private closed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { scans: unknown[]; resolve: (encoded: EncodedScans) => void }>();
  private inlineEncoder?: ScanEncoder;
  private salts: DaySalts = [];

  /** `start`: how the thread is started (tests replace it). */
  constructor(
    private readonly warn: (message: string) => void = () => undefined,
    private readonly start: () => Worker = startThread,
  ) {}

  /** The visitor salts of the days loaded (visitor-salt.ts), for the scans encoded from now on. */
  setSalts(salts: DaySalts): void {
    this.salts = salts;
    this.worker?.postMessage({ salts });
    this.inlineEncoder?.setSalts(salts);
  }

  /** Encodes a flat array of raw scans (scan-encoder.ts RAW_WIDTH values each); never rejects. */
  encode(scans: unknown[]): Promise<EncodedScans> {
    const worker = this.thread();
    if (!worker) return Promise.resolve(this.inline(scans));
    const id = this.nextId++;
    return new Promise((resolve) => {
      // Held while it has work: a process that is shutting down (nothing else keeping it alive) waits for the answer.
      if (this.waiting.size === 0) worker.ref();
      this.waiting.set(id, { scans, resolve });
      worker.postMessage({ id, scans });
    });
  }

  /** Batches handed to the encoder and not answered yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Stops the thread; what it has not answered is encoded inline, and later batches too. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.answerInline();
    if (worker) await worker.terminate();
  }

  private thread(): Worker | undefined {
    if (this.worker || this.closed || this.failures >= MAX_THREAD_FAILURES) return this.worker;
    try {
      const worker = this.start();
      worker.on('message', (m: EncodedScans & { id: number }) => {
        const job = this.waiting.get(m.id);
        if (!job) return;
        this.waiting.delete(m.id);
        if (this.waiting.size === 0) worker.unref();
        job.resolve({ entries: m.entries, counted: m.counted, saltMissing: m.saltMissing });
      });
      worker.on('error', (err) => this.failed(worker, err));
      worker.on('exit', (code) => this.failed(worker, new Error(`the scan encoder thread exited (code ${code})`)));
      worker.unref();
      if (this.salts.length > 0) worker.postMessage({ salts: this.salts });
      this.worker = worker;
    } catch (err) {
      this.failures++;
      this.warn(`scan encoder thread could not start, encoding scans inline: ${(err as Error).message}`);
    }
    return this.worker;
  }

  private failed(worker: Worker, err: Error): void {
    if (this.worker !== worker) return; // closed, or already replaced
    this.worker = undefined;
    this.failures++;
    const next = this.failures >= MAX_THREAD_FAILURES ? 'encoding scans inline from now on' : 'starting another';
    this.warn(`scan encoder thread failed (${err.message}); ${this.waiting.size} batches encoded inline, ${next}`);
    this.answerInline();
  }

  private answerInline(): void {
    const jobs = [...this.waiting.values()];
    this.waiting.clear();
    for (const job of jobs) job.resolve(this.inline(job.scans));
  }

  private inline(scans: unknown[]): EncodedScans {
    if (!this.inlineEncoder) {
      this.inlineEncoder = new ScanEncoder();
      this.inlineEncoder.setSalts(this.salts);
    }
    return this.inlineEncoder.encode(scans);
  }
}

/** The compiled thread (dist/…/scan-encoder.thread.js), or under ts-node and Jest the TypeScript source through
 * ts-node's transpiler (a development dependency; production runs the compiled file). */
export function startThread(): Worker {
  const file = join(__dirname, `scan-encoder.thread${extname(__filename)}`);
  if (extname(__filename) !== '.ts') return new Worker(file);
  return new Worker(`require('ts-node').register({ transpileOnly: true }); require(${JSON.stringify(file)});`, { eval: true });
}
