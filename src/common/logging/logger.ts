import type { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';
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

export function createPino(level: string, process: string, destination: 1 | 2 = 1): Pino {
  return pino(
    { level, base: { process }, redact: { paths: REDACT, censor: '[redacted]' }, timestamp: pino.stdTimeFunctions.isoTime },
    pino.destination({ fd: destination, sync: destination === 2 }),
  );
}

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

  log(message: unknown, ...params: unknown[]) { this.write('info', message, params); }
  error(message: unknown, ...params: unknown[]) { this.write('error', message, params); }
  warn(message: unknown, ...params: unknown[]) { this.write('warn', message, params); }
  debug(message: unknown, ...params: unknown[]) { this.write('debug', message, params); }
  verbose(message: unknown, ...params: unknown[]) { this.write('trace', message, params); }
  fatal(message: unknown, ...params: unknown[]) { this.write('fatal', message, params); }
}
