import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiException } from '../../common/errors/api.exception';
import type { ErrorCode } from '../../common/errors/error-codes';
import type { Design } from '../rendering/design';
import type { RasterFormat } from '../rendering/rendering.service';

/** PNGs wider than this are drawn in the child process; smaller ones cost little memory and stay in-process. */
export const OUT_OF_PROCESS_PNG_SIZE = 1500;
/** The child is replaced after this many images, and stopped when idle, so its memory is given back. Images are drawn
 * straight into a raw buffer (no librsvg surface), so the child's memory stays level and it can serve many. */
const RENDERS_PER_CHILD = 200;
/** Images a child draws at once: one draws (JavaScript, one thread) while the other is deflated (libuv's pool). */
const IN_FLIGHT = 2;
const IDLE_MS = 10_000;

type Pending = { child: ChildProcess; resolve(png: Buffer): void; reject(err: Error): void };
type Reply = { id: number; png?: Uint8Array; error?: { code?: ErrorCode; message: string; field?: string } };

/**
 * Large PNGs (a 4,000 px image is a 16–64 MB pixel buffer plus the encoder's memory, which the allocator keeps after)
 * are drawn in one child process (png-render.child.ts), at most IN_FLIGHT at a time: the api's memory stays flat however
 * many images a ZIP holds, and the child is recycled every RENDERS_PER_CHILD images (its memory is given back, once
 * the images it is drawing are answered) and after IDLE_MS of quiet.
 */
export class PngRenderProcess {
  private child: ChildProcess | null = null;
  private served = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private idle: NodeJS.Timeout | null = null;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  /** Children replaced while they were still drawing: each exits once its last image is answered. */
  private readonly retiring = new Set<ChildProcess>();

  constructor(
    private readonly rendersPerChild = RENDERS_PER_CHILD,
    private readonly inFlightMax = IN_FLIGHT,
  ) {}

  /** Requests drawing or waiting here. */
  get load(): number {
    return this.inFlight + this.waiting.length;
  }

  /** Images drawn at once. */
  get capacity(): number {
    return this.inFlightMax;
  }

  /** At most IN_FLIGHT at once, the others wait in order. */
  async render(payload: string, design: Design, logo: Buffer | null, size: number, format: RasterFormat = 'png'): Promise<Buffer> {
    if (this.inFlight >= this.inFlightMax) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight++;
    try {
      return await this.send(payload, design, logo, size, format);
    } finally {
      // A finishing request hands its place straight to the next one, so the count never overshoots.
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }

  stop(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) child.kill();
    for (const old of this.retiring) if (old.exitCode === null) old.kill();
    this.retiring.clear();
  }

  private pendingOn(child: ChildProcess): number {
    let count = 0;
    for (const p of this.pending.values()) if (p.child === child) count++;
    return count;
  }

  /** Replaces the child: it exits now if it has nothing to answer, else after its last answer. */
  private retire(): void {
    const child = this.child;
    this.child = null;
    if (!child) return;
    if (this.pendingOn(child) === 0) child.kill();
    else this.retiring.add(child);
  }

  private send(payload: string, design: Design, logo: Buffer | null, size: number, format: RasterFormat): Promise<Buffer> {
    if (this.idle) clearTimeout(this.idle);
    if (this.child && this.served >= this.rendersPerChild) this.retire();
    const child = this.child ?? this.start();
    this.served++;
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.set(id, { child, resolve, reject });
      child.send({ id, payload, design, logo, size, format });
    }).finally(() => {
      if (this.retiring.has(child) && this.pendingOn(child) === 0) {
        this.retiring.delete(child);
        child.kill();
      }
      if (this.idle) clearTimeout(this.idle);
      this.idle = setTimeout(() => this.pending.size === 0 && this.stop(), IDLE_MS);
      this.idle.unref();
    });
  }

  private start(): ChildProcess {
    // Compiled (dist/…/png-render.child.js) or from source under ts-node/Jest (…/png-render.child.ts).
    const js = join(__dirname, 'png-render.child.js');
    const compiled = existsSync(js);
    const child = fork(compiled ? js : join(__dirname, 'png-render.child.ts'), [], {
      serialization: 'advanced',
      execArgv: compiled ? [] : ['-r', 'ts-node/register/transpile-only'],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // Two malloc arenas instead of one per thread: freed rasterizations are reused rather than kept per thread.
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    });
    child.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (reply.png) waiting.resolve(Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength));
      else if (reply.error?.code === 'invalid_request') waiting.reject(ApiException.invalid(reply.error.field, reply.error.message));
      else if (reply.error?.code) waiting.reject(new ApiException(reply.error.code, reply.error.message));
      else waiting.reject(new Error(reply.error?.message ?? 'the PNG renderer failed'));
    });
    child.once('exit', () => {
      if (this.child === child) this.child = null;
      this.retiring.delete(child);
      // Only this child's requests: a recycled child exits while its successor may already be drawing.
      for (const [id, waiting] of this.pending) {
        if (waiting.child !== child) continue;
        this.pending.delete(id);
        waiting.reject(new Error('the PNG renderer stopped'));
      }
    });
    this.child = child;
    this.served = 0;
    return child;
  }
}

/**
 * `size` renderer children (PngRenderProcess each, started when first needed; the api takes PNG_RENDER_PROCESSES, by
 * default one per core): a child draws on one thread, so a ZIP uses the cores only with one child per core. A request
 * goes to the child with the fewest requests drawing or waiting, so a batch ZIP drawing `capacity` images ahead keeps
 * every child busy while the archive streams in order. Each child holds up to a few hundred MB while it draws 4,000 px
 * images and stops after IDLE_MS of quiet.
 */
export class PngRenderPool {
  private readonly children: PngRenderProcess[];

  constructor(size: number, rendersPerChild = RENDERS_PER_CHILD, inFlight = IN_FLIGHT) {
    this.children = Array.from({ length: Math.max(1, size) }, () => new PngRenderProcess(rendersPerChild, inFlight));
  }

  /** Images drawn at once across the children. */
  get capacity(): number {
    return this.children.reduce((sum, c) => sum + c.capacity, 0);
  }

  render(payload: string, design: Design, logo: Buffer | null, size: number, format: RasterFormat = 'png'): Promise<Buffer> {
    let least = this.children[0];
    for (const child of this.children) if (child.load < least.load) least = child;
    return least.render(payload, design, logo, size, format);
  }

  stop(): void {
    for (const child of this.children) child.stop();
  }
}
