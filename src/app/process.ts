import { AppConfig, ConfigError, loadConfig } from '../common/config/config';
import { usePretty } from '../common/logging/logger';
import { loadPlans } from '../modules/accounts/plans';
import { DRAIN_MS } from './shutdown';

/** Hard stop: the drain, then up to 10 s for the last scan flush and closing connections (compose allows 40 s). */
const FORCE_EXIT_MS = DRAIN_MS + 10_000;

/** A lifecycle line: JSON like every log line, or plain text when a person reads the terminal. */
function say(name: string, msg: string, url?: string): void {
  if (usePretty(1)) process.stdout.write(`${new Date().toTimeString().slice(0, 8)} ${name}: ${msg}${url ? ` ${url}` : ''}\n`);
  else process.stdout.write(`${JSON.stringify({ level: 30, process: name, msg, url })}\n`);
}

interface Running {
  url?: string;
  close(): Promise<void>;
}

/** Shared entry point of the three processes: validated configuration, a readiness line, clean shutdown. */
export async function runProcess(name: string, start: (config: AppConfig) => Promise<Running>): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
    loadPlans(config.plansFile); // checked here too, so a malformed PLANS_FILE stops the process like a bad variable
  } catch (err) {
    process.stderr.write(`scanlink ${name}: ${(err as Error).message}\n`);
    process.exit(err instanceof ConfigError ? 78 : 1);
  }
  try {
    const running = await start(config);
    say(name, `${name} ready`, running.url);
    let closing = false;
    const stop = (signal: string) => {
      if (closing) return;
      closing = true;
      say(name, `${name} stopping (${signal})`);
      // closeGracefully drains for up to DRAIN_MS, then flushes and closes: past FORCE_EXIT_MS something hangs.
      const force = setTimeout(() => process.exit(1), FORCE_EXIT_MS);
      force.unref();
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    // The signals Nest's enableShutdownHooks() handled: each closes the app once (the scan host flushes its buffer).
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) process.on(signal, () => stop(signal));
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { port?: number };
    if (e.code === 'EADDRINUSE') {
      const variable = { scan: 'SCAN_PORT', worker: 'WORKER_PORT' }[name] ?? 'PORT';
      process.stderr.write(`scanlink ${name}: port ${e.port ?? ''} is already in use (another process listens there); set ${variable} to a free port\n`);
      process.exit(1);
    }
    process.stderr.write(`scanlink ${name}: failed to start: ${e.stack ?? e}\n`);
    process.exit(1);
  }
}
