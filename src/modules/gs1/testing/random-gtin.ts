import { randomInt } from 'node:crypto';
import { gs1CheckDigit } from '../check-digits';

/** A valid GTIN-14 nobody else uses (e2e tests share one database, and an identifier is unique per host). */
export function randomGtin(): string {
  const body = `09${Array.from({ length: 11 }, () => randomInt(10)).join('')}`;
  return body + gs1CheckDigit(body);
}
