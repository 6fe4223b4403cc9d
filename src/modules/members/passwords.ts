import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';

/** argon2id (OWASP's minimum: 19 MiB, 2 passes, 1 lane) through @node-rs/argon2, whose hashing runs on libuv's thread
 * pool: a sign-in burst never blocks the event loop. */
const OPTIONS = { algorithm: 2 /* Algorithm.Argon2id (a const enum) */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** At most this many hashes at once, leaving a core to the event loop: a burst of sign-ins queues here instead of
 * starving every other request of CPU (PASSWORD_HASH_CONCURRENCY overrides it). */
const CONCURRENCY = Math.max(1, Number(process.env.PASSWORD_HASH_CONCURRENCY) || availableParallelism() - 1);
let running = 0;
const waiting: (() => void)[] = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return limited(() => hash(password, OPTIONS));
}

let dummy: Promise<string> | undefined;

/** Checks the password against the stored hash. Without a hash (unknown e-mail, or a user without a password) it still
 * verifies against a throwaway hash, so the answer takes as long as for a wrong password. */
export async function checkPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword('scanlink-timing-equaliser-not-a-password');
    const throwaway = await dummy;
    await limited(() => verify(throwaway, password)).catch(() => false);
    return false;
  }
  return limited(() => verify(stored, password)).catch(() => false);
}

/** null when acceptable, otherwise why not. */
export function passwordProblem(password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if ([...password].length > MAX_PASSWORD_LENGTH) return `password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}
