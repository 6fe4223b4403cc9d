import { DriverException } from '@mikro-orm/core';

/** What an error log line may carry: never SQL statements, their parameters, pg's `detail` (it quotes the values of a
 * violated key) or request bodies. */
export interface SafeError {
  error_class: string;
  code?: string;
  constraint?: string;
  table?: string;
  column?: string;
  message?: string;
  stack?: string;
}

/** A failed statement's text as knex and MikroORM write it into messages: `<statement with values> - <reason>`, then
 * ` - detail: …` / ` - hint: …` lines. Everything from the statement's first keyword to the last ` - ` goes. */
const STATEMENT = /\b(select|insert into|update|delete from|with|copy)\b[\s\S]* - /i;
const DETAIL = /\n - (detail|hint): [^\n]*/g;

/** Removes statements and their values from free text bound for a log line. */
export function scrubLogText(text: string): string {
  if (!text.includes(' - ')) return text;
  return text.replace(DETAIL, '').replace(STATEMENT, '[statement omitted] - ');
}

const frames = (stack: string | undefined) =>
  stack
    ?.split('\n')
    .filter((l) => l.trimStart().startsWith('at '))
    .join('\n');

/** The loggable part of an error: class, driver code and constraint; the message only when no statement is in it. */
export function describeError(err: unknown): SafeError {
  if (!(err instanceof Error)) return { error_class: typeof err };
  const e = err as Error & Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const database = err instanceof DriverException || typeof e.sqlState === 'string' || (typeof e.severity === 'string' && typeof e.code === 'string');
  return {
    error_class: e.constructor?.name ?? e.name,
    code: str(e.code) ?? str(e.sqlState),
    constraint: str(e.constraint),
    table: str(e.table),
    column: str(e.column),
    message: database ? undefined : scrubLogText(e.message),
    stack: database ? frames(e.stack) : scrubLogText(e.stack ?? ''),
  };
}
