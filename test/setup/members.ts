import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Role } from '../../src/common/auth/roles';
import { newId } from '../../src/common/ids';
import { ensureOwner, upsertUser } from '../../src/modules/members/members.repository';
import { hashPassword } from '../../src/modules/members/passwords';
import { db, http, TestApp } from './app';

export const PASSWORD = 'correct horse battery staple';

/** A LOCAL_DATA_DIR of its own, so that the test reads only its own mail (`<dir>/mail/*.eml`). */
export const mailDataDir = (): string => mkdtempSync(join(tmpdir(), 'scanlink-mail-'));

/** The newest message of the mail directory written to `to`, as text. */
export function lastMailTo(dataDir: string, to: string): string | undefined {
  const dir = join(dataDir, 'mail');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
  } catch {
    return undefined;
  }
  for (const f of files.reverse()) {
    // Bodies are quoted-printable: undo soft line breaks and =XX escapes.
    const text = readFileSync(join(dir, f), 'utf8')
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (text.toLowerCase().includes(`to: ${to.toLowerCase()}`)) return text;
  }
  return undefined;
}

/** The token of the `…?token=` link in a message. */
export const tokenIn = (mail: string | undefined): string | undefined => /[?&]token=([0-9A-Za-z]+)/.exec(mail ?? '')?.[1];

/** A user with a password and an active membership of this role (arranged in the database, as the CLI would). */
export async function addMember(api: TestApp, organizationId: string, email: string, role: Role, password: string | null = PASSWORD): Promise<string> {
  const em = db(api);
  let userId: string;
  if (role === 'owner') {
    userId = (await ensureOwner(em, organizationId, email)).id;
  } else {
    userId = (await upsertUser(em, email)).id;
    await em.execute(`insert into memberships (id, organization_id, user_id, role, status) values (?, ?, ?, ?, 'active')`, [newId('mem'), organizationId, userId, role]);
  }
  if (password) await em.execute('update users set password_hash = ? where id = ?', [await hashPassword(password), userId]);
  return userId;
}

export interface SignedIn {
  token: string;
  cookie: string;
  body: any;
}

/** The refresh cookie (`name=value`) of a Set-Cookie answer. */
export const refreshCookieOf = (headers: Headers): string | undefined =>
  headers.getSetCookie().map((c) => c.split(';')[0]).find((c) => c.startsWith('scanlink_refresh='));

export async function signIn(api: TestApp, email: string, password = PASSWORD, extra: Record<string, string> = {}): Promise<SignedIn> {
  const res = await http(api.origin, 'POST', '/v1/session', { body: { email, password, ...extra }, headers: { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250) + 1}` } });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${res.text}`);
  return { token: res.body.token, cookie: refreshCookieOf(res.headers)!, body: res.body };
}
