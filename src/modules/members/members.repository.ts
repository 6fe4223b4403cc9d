import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { newId, randomBase62 } from '../../common/ids';
import type { Role } from '../../common/auth/roles';

/** The members module's tables (users, memberships, user_sessions, auth_tokens), as plain SQL on the caller's
 * EntityManager (often inside its transaction). */

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  password_hash: string | null;
  created_at: Date;
}

export interface MembershipRow {
  id: string;
  organization_id: string;
  user_id: string;
  role: Role;
  status: 'active' | 'invited';
  invitation_expires_at: Date | null;
  created_at: Date;
  email: string;
  name: string | null;
}

/** Sign-in links last 15 minutes. */
export const LINK_TTL_MS = 15 * 60_000;

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** SHA-256 of a one-time token or refresh token: only the hash is stored. */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');
export const newSecretToken = (): string => randomBase62(43);

export async function findUserByEmail(em: EntityManager, email: string): Promise<UserRow | null> {
  const [row] = await em.execute<UserRow[]>('select * from users where email = ?', [normalizeEmail(email)]);
  return row ?? null;
}

export async function findUser(em: EntityManager, id: string): Promise<UserRow | null> {
  const [row] = await em.execute<UserRow[]>('select * from users where id = ?', [id]);
  return row ?? null;
}

/** The user with this e-mail, created (without a name or password) when new. */
export async function upsertUser(em: EntityManager, email: string): Promise<UserRow> {
  const [row] = await em.execute<UserRow[]>(
    `insert into users (id, email) values (?, ?) on conflict (email) do update set email = excluded.email returning *`,
    [newId('usr'), normalizeEmail(email)],
  );
  return row;
}

const MEMBER_SELECT = `select m.id, m.organization_id, m.user_id, m.role, m.status, m.invitation_expires_at, m.created_at, u.email, u.name
  from memberships m join users u on u.id = m.user_id`;

export async function findMembership(em: EntityManager, organizationId: string, id: string): Promise<MembershipRow | null> {
  const [row] = await em.execute<MembershipRow[]>(`${MEMBER_SELECT} where m.organization_id = ? and m.id = ?`, [organizationId, id]);
  return row ?? null;
}

export async function membershipOf(em: EntityManager, organizationId: string, userId: string): Promise<MembershipRow | null> {
  const [row] = await em.execute<MembershipRow[]>(`${MEMBER_SELECT} where m.organization_id = ? and m.user_id = ?`, [organizationId, userId]);
  return row ?? null;
}

/** The user's active memberships with their workspace names, oldest first. */
export async function activeMembershipsOf(em: EntityManager, userId: string): Promise<{ organization_id: string; name: string; role: Role }[]> {
  return em.execute(
    `select m.organization_id, o.name, m.role from memberships m join organizations o on o.id = m.organization_id
      where m.user_id = ? and m.status = 'active' order by m.created_at, m.id`,
    [userId],
  );
}

/** Keyset page of a workspace's members, newest first. */
export async function pageMembers(em: EntityManager, organizationId: string, limit: number, after?: { at: Date; id: string }): Promise<MembershipRow[]> {
  const params: unknown[] = [organizationId];
  let cond = '';
  if (after) {
    cond = ' and (m.created_at, m.id) < (?, ?)';
    params.push(after.at, after.id);
  }
  params.push(limit);
  return em.execute<MembershipRow[]>(`${MEMBER_SELECT} where m.organization_id = ?${cond} order by m.created_at desc, m.id desc limit ?`, params);
}

/** Active members plus invitations still pending: what the plan's seats count. */
export async function seatsTaken(em: EntityManager, organizationId: string): Promise<number> {
  const [row] = await em.execute<{ n: string }[]>(
    `select count(*) as n from memberships where organization_id = ? and (status = 'active' or invitation_expires_at > now())`,
    [organizationId],
  );
  return Number(row.n);
}

export async function activeOwners(em: EntityManager, organizationId: string): Promise<number> {
  const [row] = await em.execute<{ n: string }[]>(
    `select count(*) as n from memberships where organization_id = ? and role = 'owner' and status = 'active'`,
    [organizationId],
  );
  return Number(row.n);
}

/** Makes the user with this e-mail an active owner of the workspace (the CLI's org:create). */
export async function ensureOwner(em: EntityManager, organizationId: string, email: string): Promise<UserRow> {
  const user = await upsertUser(em, email);
  await em.execute(
    `insert into memberships (id, organization_id, user_id, role, status) values (?, ?, ?, 'owner', 'active')
      on conflict (organization_id, user_id) do update set role = 'owner', status = 'active', invitation_expires_at = null, updated_at = now()`,
    [newId('mem'), organizationId, user.id],
  );
  return user;
}

/** A one-time token (sign-in link or invitation); returns the token itself, which is never stored. */
export async function createAuthToken(
  em: EntityManager,
  purpose: 'sign_in' | 'invitation',
  userId: string,
  ttlMs: number,
  membershipId: string | null = null,
): Promise<string> {
  const token = newSecretToken();
  await em.execute(
    `insert into auth_tokens (id, purpose, token_hash, user_id, membership_id, expires_at) values (?, ?, ?, ?, ?, ?)`,
    [newId('atk'), purpose, hashToken(token), userId, membershipId, new Date(Date.now() + ttlMs)],
  );
  return token;
}

/** Uses a one-time token: marks it used and returns whom it names, or null when unknown, used or expired. */
export async function consumeAuthToken(
  em: EntityManager,
  purpose: 'sign_in' | 'invitation',
  token: string,
): Promise<{ user_id: string; membership_id: string | null } | null> {
  const [row] = await em.execute<{ user_id: string; membership_id: string | null }[]>(
    `update auth_tokens set used_at = now() where token_hash = ? and purpose = ? and used_at is null and expires_at > now()
      returning user_id, membership_id`,
    [hashToken(token), purpose],
  );
  return row ?? null;
}

export interface SessionRow {
  id: string;
  family_id: string;
  user_id: string;
  organization_id: string;
  expires_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
}

/** A new refresh token (a new family unless `familyId`); returns the token, whose hash alone is stored. */
export async function createRefreshSession(
  em: EntityManager,
  input: { userId: string; organizationId: string; familyId?: string; ttlMs: number },
): Promise<{ token: string; id: string }> {
  const token = newSecretToken();
  const id = newId('ses');
  await em.execute(
    `insert into user_sessions (id, family_id, user_id, organization_id, token_hash, expires_at) values (?, ?, ?, ?, ?, ?)`,
    [id, input.familyId ?? id, input.userId, input.organizationId, hashToken(token), new Date(Date.now() + input.ttlMs)],
  );
  return { token, id };
}

export async function findRefreshSession(em: EntityManager, token: string): Promise<SessionRow | null> {
  const [row] = await em.execute<SessionRow[]>(
    'select id, family_id, user_id, organization_id, expires_at, rotated_at, revoked_at from user_sessions where token_hash = ?',
    [hashToken(token)],
  );
  return row ?? null;
}

/** Marks the refresh token rotated; false when another request rotated (or revoked) it first. */
export async function markRotated(em: EntityManager, id: string): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    'update user_sessions set rotated_at = now() where id = ? and rotated_at is null and revoked_at is null returning id',
    [id],
  );
  return rows.length === 1;
}

export async function revokeFamily(em: EntityManager, familyId: string): Promise<void> {
  await em.execute('update user_sessions set revoked_at = now() where family_id = ? and revoked_at is null', [familyId]);
}

export async function revokeUserSessions(em: EntityManager, userId: string): Promise<void> {
  await em.execute('update user_sessions set revoked_at = now() where user_id = ? and revoked_at is null', [userId]);
}

/** Revokes the user's sessions of one workspace (a removed member). */
export async function revokeMemberSessions(em: EntityManager, userId: string, organizationId: string): Promise<void> {
  await em.execute('update user_sessions set revoked_at = now() where user_id = ? and organization_id = ? and revoked_at is null', [userId, organizationId]);
}
