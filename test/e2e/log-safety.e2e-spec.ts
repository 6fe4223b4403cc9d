import { Writable } from 'node:stream';
import type { Logger } from '@nestjs/common';
import pino from 'pino';
import { toEnvelope } from '../../src/common/errors/exception.filter';
import { PinoLoggerService } from '../../src/common/logging/logger';
import { db, startApi, TestApp } from '../setup/app';

/**
 * What reaches the logs when a statement fails against the real database: the error class, SQLSTATE, constraint and
 * request id, never the statement's values (a visitor's e-mail, a Wi-Fi password, a key hash).
 */
describe('error logs carry no statement values', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api?.close());

  const SECRET_VALUES = ['visitor@example.com', 'hunter2-wifi-password'];

  /** A real failed statement whose parameters hold the secret values (a duplicate primary key). */
  async function failedStatement(): Promise<Error> {
    const em = db(api);
    await em.execute(`create temporary table if not exists log_probe (id text primary key, email text, password text)`);
    await em.execute('insert into log_probe values (?, ?, ?) on conflict do nothing', ['p1', 'x', 'y']);
    try {
      await em.execute('insert into log_probe values (?, ?, ?)', ['p1', ...SECRET_VALUES]);
    } catch (err) {
      return err as Error;
    }
    throw new Error('the statement did not fail');
  }

  it('the unhandled-error line names class, code and constraint only', async () => {
    const err = await failedStatement();
    expect(err.message).toContain(SECRET_VALUES[0]); // the driver does put values in its message
    const lines: unknown[] = [];
    const capture = { error: (...a: unknown[]) => lines.push(a), warn: (...a: unknown[]) => lines.push(a) } as unknown as Logger;
    const { status, body } = toEnvelope(err, 'req_probe', capture);
    expect(status).toBe(500);
    expect(JSON.stringify(body)).not.toMatch(/visitor|hunter2|insert/);
    const logged = JSON.stringify(lines);
    for (const v of SECRET_VALUES) expect(logged).not.toContain(v);
    expect(logged).toContain('UniqueConstraintViolationException');
    expect(logged).toContain('23505');
    expect(logged).toContain('log_probe_pkey');
    expect(logged).toContain('req_probe');
  });

  it('free-text log lines built from such an error lose the statement but keep the reason', async () => {
    const err = await failedStatement();
    let out = '';
    const sink = new Writable({ write: (chunk, _enc, cb) => ((out += String(chunk)), cb()) });
    const logger = new PinoLoggerService(pino({ level: 'info' }, sink));
    logger.error(`batch batch_1 item 3: ${err.stack}`, 'BatchesService');
    logger.warn(`webhook sweep failed: ${err.message}`, 'WebhookDispatcher');
    for (const v of SECRET_VALUES) expect(out).not.toContain(v);
    expect(out).toContain('duplicate key value violates unique constraint');
  });
});
