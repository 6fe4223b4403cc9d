import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string from a CSPRNG (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (const b of bytes) {
      if (b < 248) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix =
  | 'qr' | 'sqr' | 'fld' | 'batch' | 'evt' | 'key' | 'org' | 'we' | 'wd' | 'dom' | 'tpl' | 'req' | 'lead' | 'bi' | 'scan' | 'file'
  | 'usr' | 'mem' | 'ses' | 'atk' | 'aud';

/** Prefixed resource id: `<prefix>_` + 20 base62 characters. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}

export const ID_PATTERN = /^[a-z]+_[0-9A-Za-z]{16,40}$/;

export function hasPrefix(id: string, ...prefixes: IdPrefix[]): boolean {
  return ID_PATTERN.test(id) && prefixes.some((p) => id.startsWith(`${p}_`));
}

/** Seven-character paths the scan host answers itself (`/metrics`): never handed out as short codes. */
export const RESERVED_SHORT_CODES: ReadonlySet<string> = new Set(['metrics']);

export function newShortCode(): string {
  let code: string;
  do code = randomBase62(7);
  while (RESERVED_SHORT_CODES.has(code));
  return code;
}
