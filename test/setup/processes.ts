import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { TEST_WORKER_WEBHOOKS } from './app';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/lib/services') as { freePort(): Promise<number> };

/** A TCP port free on loopback now. */
export const freePort = (): Promise<number> => services.freePort();

const ROOT = join(__dirname, '..', '..');

/** Processes spawned by the current test file and still running. */
const running = new Set<ChildProcess>();
// A test that fails before it stops its process must not leave it running: Jest would wait for it (its pipes stay
// open) and the next file could meet its port or its queue. Registered in every file that imports this module.
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

export interface SpawnedProcess {
  name: 'api' | 'scan' | 'worker';
  child: ChildProcess;
  /** http://127.0.0.1:<port> (the worker's health and metrics server for the worker) */
  origin: string;
  /** Everything the process wrote, stdout and stderr. */
  output(): string;
  /** Sends a signal and resolves with the exit code (null if killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Starts `src/main.<name>.ts` as its own process (ts-node, as the operator runs the compiled file) on a free port, and
 * resolves once it printed its ready line. */
export async function spawnProcess(name: 'api' | 'scan' | 'worker', env: Record<string, string | undefined> = {}): Promise<SpawnedProcess> {
  const port = await services.freePort();
  const portVar = { api: 'PORT', scan: 'SCAN_PORT', worker: 'WORKER_PORT' }[name];
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', `main.${name}.ts`)],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'warn', TRUST_PROXY: 'loopback', ...TEST_WORKER_WEBHOOKS, ...env, [portVar]: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 90 s:\n${out}`)), 90_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`"msg":"${name} ready"`) || out.includes(`${name}: ${name} ready`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${out}`));
    });
  });
  return {
    name,
    child,
    origin: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
