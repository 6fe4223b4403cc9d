import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids';

/** `live` keys and data, or the isolated `test` environment (`qr_test_…` keys). */
export type Environment = 'live' | 'test';

/** Both environments, in a fixed order. */
export const ENVIRONMENTS: readonly Environment[] = ['live', 'test'];

const KEY_PATTERN = /^qr_(live|test)_[0-9A-Za-z]{32}$/;

export function generateApiKey(environment: Environment): string {
  return `qr_${environment}_${randomBase62(32)}`;
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The visible part of a key: its first 12 characters (`qr_live_AbCd`). */
export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}
