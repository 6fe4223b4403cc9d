import { createHmac, hash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Redis key of the salt of one UTC day: `scanlink:visitor-salt:YYYY-MM-DD`. */
export const VISITOR_SALT_PREFIX = 'scanlink:visitor-salt:';
/** A day's salt is deleted this long after the day starts (00:00 UTC), so at most 48 hours after it was made. */
export const VISITOR_SALT_LIFETIME_MS = 48 * 3_600_000;
const DAY_MS = 86_400_000;

/** The moment (ms) the salt of UTC day `day` (YYYY-MM-DD) is deleted: the day's start + 48 hours. */
export const saltExpiry = (day: string): number => Date.parse(`${day}T00:00:00.000Z`) + VISITOR_SALT_LIFETIME_MS;

/**
 * The salt of UTC day `day`, made by whichever process asks first (32 random bytes, SET NX with an absolute expiry):
 * every scan process of the deployment uses the same salt for the same day. Returns null once the salt has expired
 * (the day is more than 48 hours old): a deleted salt is never made again.
 */
export async function loadDaySalt(redis: Redis, day: string, now = Date.now()): Promise<Buffer | null> {
  const expiry = saltExpiry(day);
  if (expiry <= now) return null;
  const key = VISITOR_SALT_PREFIX + day;
  await redis.set(key, randomBytes(32).toString('base64'), 'PXAT', expiry, 'NX');
  const value = await redis.get(key);
  return value ? Buffer.from(value, 'base64') : null;
}

/**
 * The visitor of a scan for uniqueness: HMAC-SHA256 under the day's salt of (code id, client address, user agent),
 * base64url, 128 bits. The same person scanning the same code on the same UTC day gives the same value; another
 * code, another day (another salt) or another address gives an unrelated one, and once the salt is deleted nobody can
 * tell whose it was (the scheme Plausible uses).
 */
export function visitorHash(salt: Buffer, codeId: string, ip: string, userAgent: string): string {
  return createHmac('sha256', salt).update(codeId).update('\n').update(ip).update('\n').update(userAgent).digest('base64url').slice(0, 22);
}

/** SHA-256's block size: an HMAC key is padded to it (RFC 2104). */
const BLOCK = 64;
/** Messages up to this many bytes are hashed in a buffer kept per salt; longer ones (a user agent of kilobytes) take
 * createHmac. */
const MAX_MESSAGE = 1_024;

/**
 * visitorHash under one salt, for the hot path: the same HMAC-SHA256 (RFC 2104: H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ m))),
 * with the padded keys prepared once per salt and the two hashes made by Node's one-shot `crypto.hash`. `createHmac`
 * builds a JS object, a key and an OpenSSL context per call and crosses into C++ once per `update`: about 32,000
 * instructions a call against 24,000 for this (callgrind, Node 20.20 with OpenSSL 3.0; docs/scan-host.md), on a
 * request that costs the bare server about 160,000; taking the inner hash as a latin1 string instead of a Buffer cut
 * it by another 40 % (1.9 against 3.3 µs a call in a loop on a busy machine). The result is identical (unit-tested
 * against createHmac), so scan processes of either version agree on a visitor. Not reentrant (one scratch buffer),
 * which a single-threaded caller never needs.
 */
export class VisitorHasher {
  /** K ⊕ ipad, then the message. */
  private readonly inner = Buffer.alloc(BLOCK + MAX_MESSAGE);
  /** K ⊕ opad, then the inner hash. */
  private readonly outer = Buffer.alloc(BLOCK + 32);

  constructor(private readonly salt: Buffer) {
    if (salt.length > BLOCK) throw new Error('a visitor salt is at most 64 bytes');
    this.inner.fill(0x36, 0, BLOCK);
    this.outer.fill(0x5c, 0, BLOCK);
    for (let i = 0; i < salt.length; i++) {
      this.inner[i] ^= salt[i];
      this.outer[i] ^= salt[i];
    }
  }

  hash(codeId: string, ip: string, userAgent: string): string {
    // UTF-16 length × 3 bounds the UTF-8 length: every message that could overflow the buffer takes createHmac.
    if ((codeId.length + ip.length + userAgent.length + 2) * 3 > MAX_MESSAGE) return visitorHash(this.salt, codeId, ip, userAgent);
    const n = this.inner.write(`${codeId}\n${ip}\n${userAgent}`, BLOCK, 'utf8');
    // The inner hash as a latin1 ('binary') string, one byte per character, written into the outer buffer: a Buffer
    // result would cost a backing store from malloc and a copy per call, about a third of this method's time.
    this.outer.write(hash('sha256', this.inner.subarray(0, BLOCK + n), 'binary'), BLOCK, 'latin1');
    return hash('sha256', this.outer, 'base64url').slice(0, 22);
  }
}

/**
 * The scan process's salts: today's and, shortly before midnight, tomorrow's, kept in memory so that a scan costs no
 * I/O (one HMAC). A timer refreshes them every minute and hands every change to `onChange` (the scan encoder builds
 * its hashers from them); a day whose salt is not loaded yet (Redis unreachable since the day began) gives no
 * visitor, and such scans count as new visitors.
 */
export class VisitorSalts {
  private readonly salts = new Map<string, Buffer>();
  private timer?: NodeJS.Timeout;
  private loading?: Promise<void>;
  private lastTry = 0;

  constructor(
    private readonly redis: Redis,
    private readonly onChange: (salts: [day: string, salt: Buffer][]) => void,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Loads today's salt (and tomorrow's in the last 15 minutes of the day) and forgets salts of past days. */
  async refresh(): Promise<void> {
    const now = this.clock();
    const today = new Date(now).toISOString().slice(0, 10);
    const days = [today];
    if (now % DAY_MS >= DAY_MS - 15 * 60_000) days.push(new Date(now + DAY_MS).toISOString().slice(0, 10));
    let changed = false;
    for (const day of [...this.salts.keys()]) {
      if (day < today && this.salts.delete(day)) changed = true;
    }
    try {
      for (const day of days) {
        if (this.salts.has(day)) continue;
        const salt = await loadDaySalt(this.redis, day, now);
        if (salt) {
          this.salts.set(day, salt);
          changed = true;
        }
      }
    } finally {
      if (changed) this.onChange([...this.salts]);
    }
  }

  start(intervalMs = 60_000, warn: (message: string) => void = () => undefined): Promise<void> {
    const run = () => this.refresh().catch((err: Error) => warn(`visitor salt: ${err.message}`));
    this.timer = setInterval(() => void run(), intervalMs);
    this.timer.unref();
    return run();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** A scan's day had no salt (a new day began before the timer loaded it): one load at a time, at most once a second. */
  missing(): void {
    const now = this.clock();
    if (this.loading || now - this.lastTry < 1_000) return;
    this.lastTry = now;
    this.loading = this.refresh()
      .catch(() => undefined)
      .finally(() => (this.loading = undefined));
  }
}
