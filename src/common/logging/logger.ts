import type { LoggerService } from '@nestjs/common';
import pino, { DestinationStream, Logger as Pino } from 'pino';
import pinoPretty from 'pino-pretty';
import { scrubLogText } from './safe-error';

/** Paths pino blanks out wherever they appear, so a key or secret never reaches a log line. */
const REDACT = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'api_key',
  '*.api_key',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'token',
  '*.token',
];

/** LOG_FORMAT=pretty|json; unset: pretty when the destination is a terminal (a person reads it), JSON otherwise (a
 * log collector reads it). pino-pretty formats in-process: only worth it for a person's terminal. */
export function usePretty(fd: 1 | 2): boolean {
  const format = process.env.LOG_FORMAT;
  if (format === 'pretty' || format === 'json') return format === 'pretty';
  return Boolean((fd === 1 ? process.stdout : process.stderr).isTTY);
}

export function createPino(level: string, processName: string, destination: 1 | 2 = 1): Pino {
  const stream: DestinationStream = usePretty(destination)
    ? pinoPretty({ destination, sync: destination === 2, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', colorize: process.env.NO_COLOR === undefined })
    : pino.destination({ fd: destination, sync: destination === 2 });
  return pino({ level, base: { process: processName }, redact: { paths: REDACT, censor: '[redacted]' }, timestamp: pino.stdTimeFunctions.isoTime }, stream);
}

/** Nest's own start-up chatter (one line per module, route and mapping): useful when debugging, noise otherwise. */
const NEST_BOOT_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Nest's LoggerService on top of pino: structured JSON lines. */
export class PinoLoggerService implements LoggerService {
  constructor(private readonly pino: Pino) {}

  /** Every line goes through scrubLogText: a message built from a failed statement's error keeps its reason but loses
   * the statement and its values (visitor e-mails, Wi-Fi passwords, key hashes). */
  private write(level: 'info' | 'warn' | 'error' | 'debug' | 'trace' | 'fatal', raw: unknown, rawParams: unknown[]): void {
    const message = typeof raw === 'string' ? scrubLogText(raw) : raw;
    const params = rawParams.map((p) => (typeof p === 'string' ? scrubLogText(p) : p));
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    if (message !== null && typeof message === 'object') {
      const [msg] = params;
      this.pino[level]({ context, ...(message as object) }, typeof msg === 'string' ? msg : undefined);
    } else if (level === 'error' && typeof params[0] === 'string' && params[0].includes('\n')) {
      this.pino.error({ context, stack: params[0] }, String(message));
    } else {
      this.pino[level]({ context }, String(message));
    }
  }

  log(message: unknown, ...params: unknown[]) {
    const context = params[params.length - 1];
    this.write(typeof context === 'string' && NEST_BOOT_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }
  error(message: unknown, ...params: unknown[]) { this.write('error', message, params); }
  warn(message: unknown, ...params: unknown[]) { this.write('warn', message, params); }
  debug(message: unknown, ...params: unknown[]) { this.write('debug', message, params); }
  verbose(message: unknown, ...params: unknown[]) { this.write('trace', message, params); }
  fatal(message: unknown, ...params: unknown[]) { this.write('fatal', message, params); }
}
