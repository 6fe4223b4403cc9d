import { AppConfig, ConfigError, loadConfig } from '../common/config/config';

interface Running {
  url?: string;
  close(): Promise<void>;
}

/** Shared entry point of the three processes: validated configuration, a readiness line, clean shutdown. */
export async function runProcess(name: string, start: (config: AppConfig) => Promise<Running>): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`scanlink ${name}: ${(err as Error).message}\n`);
    process.exit(err instanceof ConfigError ? 78 : 1);
  }
  try {
    const running = await start(config);
    process.stdout.write(`${JSON.stringify({ level: 30, process: name, msg: `${name} ready`, url: running.url })}\n`);
    let closing = false;
    const stop = (signal: string) => {
      if (closing) return;
      closing = true;
      process.stdout.write(`${JSON.stringify({ level: 30, process: name, msg: `${name} stopping (${signal})` })}\n`);
      const force = setTimeout(() => process.exit(1), 10_000);
      force.unref();
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    // The signals Nest's enableShutdownHooks() handled: each closes the app once (the scan host flushes its buffer).
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const) process.on(signal, () => stop(signal));
  } catch (err) {
    process.stderr.write(`scanlink ${name}: failed to start: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  }
}
