import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiException } from '../../common/errors/api.exception';
import type { ErrorCode } from '../../common/errors/error-codes';
import type { Design } from '../rendering/design';
import type { RasterFormat } from '../rendering/rendering.service';

/** PNGs wider than this are drawn in the child process; smaller ones cost little memory and stay in-process. */
export const OUT_OF_PROCESS_PNG_SIZE = 1500;
/** The child is replaced after this many images, and stopped when idle, so its memory is given back. */
const RENDERS_PER_CHILD = 10;
const IDLE_MS = 10_000;

type Pending = { child: ChildProcess; resolve(png: Buffer): void; reject(err: Error): void };
type Reply = { id: number; png?: Uint8Array; error?: { code?: ErrorCode; message: string; field?: string } };

/**
 * Large PNGs (a 4,000 px rasterization holds several hundred MB of native memory, which the allocator keeps after)
 * are drawn in one child process (png-render.child.ts), one image at a time: the api's memory stays flat however many
 * images a ZIP holds, and the child is recycled every RENDERS_PER_CHILD images (its memory is given back) and after IDLE_MS of quiet.
 */
export class PngRenderProcess {
  private child: ChildProcess | null = null;
  private served = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private queue: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | null = null;

  constructor(private readonly rendersPerChild = RENDERS_PER_CHILD) {}

  /** One at a time, in order: the child never holds two rasterizations. */
  render(payload: string, design: Design, logo: Buffer | null, size: number, format: RasterFormat = 'png'): Promise<Buffer> {
    const run = this.queue.then(() => this.send(payload, design, logo, size, format));
    this.queue = run.catch(() => undefined);
    return run;
  }

  stop(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null) child.kill();
  }

  private send(payload: string, design: Design, logo: Buffer | null, size: number, format: RasterFormat): Promise<Buffer> {
    if (this.idle) clearTimeout(this.idle);
    if (this.child && this.served >= this.rendersPerChild) this.stop();
    const child = this.child ?? this.start();
    this.served++;
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.set(id, { child, resolve, reject });
      child.send({ id, payload, design, logo, size, format });
    }).finally(() => {
      this.idle = setTimeout(() => this.stop(), IDLE_MS);
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
