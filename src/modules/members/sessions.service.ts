import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { Redis } from 'ioredis';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { clientAddressKey } from '../../common/http/client-address';
import { REDIS } from '../../common/redis/redis.provider';
import type { AuthContext } from '../../common/auth/auth-context';
import type { Role } from '../../common/auth/roles';
import { MailService } from '../mail/mail.service';
import { recordAudit } from '../audit/audit.repository';
import { DashboardAuthService } from '../tokens/dashboard-auth.service';
import {
  activeMembershipsOf,
  consumeAuthToken,
  createAuthToken,
  createRefreshSession,
  findRefreshSession,
  findUser,
  findUserByEmail,
  LINK_TTL_MS,
  markRotated,
  membershipOf,
  normalizeEmail,
  revokeFamily,
  revokeUserSessions,
  type UserRow,
} from './members.repository';
import { checkPassword } from './passwords';
import type { SessionDto } from './dto/members.dto';

export const REFRESH_COOKIE = 'scanlink_refresh';
export const REFRESH_COOKIE_PATH = '/v1/session';
export const SESSION_TOKEN_SECONDS = 15 * 60;
export const REFRESH_TTL_MS = 30 * 86_400_000;
/** Failed sign-ins allowed per minute, per e-mail address and per client address. */
export const SIGN_IN_FAILURES_PER_MINUTE = 10;

export type SignInMethod = 'password' | 'email_link' | 'invitation' | 'sso';

const INVALID = 'The e-mail address or password is not correct';

/** Sign-in (password, e-mail link), the short-lived session JWT and the rotating refresh cookie. */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly tokens: DashboardAuthService,
    private readonly mail: MailService,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether Scanlink issues sessions itself (DASHBOARD_JWT_SECRET): password, link and single sign-on need it. */
  get issuesSessions(): boolean {
    return this.config.dashboardJwtSecret !== undefined;
  }

  async signInWithPassword(req: FastifyRequest, reply: FastifyReply, body: { email: string; password: string; organization_id?: string }): Promise<SessionDto> {
    const email = normalizeEmail(body.email);
    await this.refuseWhenThrottled(email, req.ip);
    const em = this.em.fork();
    const user = await findUserByEmail(em, email);
    // The same work (one argon2 verification) and the same answer whether or not the e-mail is known.
    const ok = await checkPassword(user?.password_hash, body.password);
    if (!user || !ok) {
      await this.countFailure(email, req.ip);
      throw new ApiException('invalid_credentials', INVALID);
    }
    return this.start(em, reply, user, body.organization_id, 'password');
  }

  /** Sends a sign-in link when the address belongs to a user; the answer never says whether it did. */
  async sendLink(req: FastifyRequest, email: string): Promise<void> {
    const address = normalizeEmail(email);
    // Link requests have their own window (10 a minute per address and per client): a flood of mail is refused quietly.
    if (await this.throttled(address, req.ip, 'link')) return;
    await this.countFailure(address, req.ip, 'link');
    const em = this.em.fork();
    const user = await findUserByEmail(em, address);
    if (!user || (await activeMembershipsOf(em, user.id)).length === 0) return;
    const token = await createAuthToken(em, 'sign_in', user.id, LINK_TTL_MS);
    const link = `${new URL(this.config.apiBaseUrl).origin}/app/sign-in?token=${token}`;
    // Not awaited: the answer takes as long whether or not a message goes out.
    this.mail
      .send({
        to: user.email,
        subject: 'Your Scanlink sign-in link',
        text: `Sign in to Scanlink with this link (valid 15 minutes, usable once):\n\n${link}\n\nIf you did not ask for it, ignore this message.\n`,
      })
      .catch((err: Error) => this.logger.warn(`sign-in link mail failed: ${err.message}`));
  }

  async verifyLink(reply: FastifyReply, token: string): Promise<SessionDto> {
    const em = this.em.fork();
    const used = await consumeAuthToken(em, 'sign_in', token);
    const user = used && (await findUser(em, used.user_id));
    if (!user) throw new ApiException('unauthorized', 'This sign-in link is unknown, used or expired: ask for a new one');
    return this.start(em, reply, user, undefined, 'email_link');
  }

  /** A session for this user in the named workspace, or in the first one they belong to. `method` (how they proved who
   * they are) goes to the audit entry. */
  async start(em: EntityManager, reply: FastifyReply, user: UserRow, organizationId?: string, method?: SignInMethod): Promise<SessionDto> {
    const memberships = await activeMembershipsOf(em, user.id);
    const membership = organizationId ? memberships.find((m) => m.organization_id === organizationId) : memberships[0];
    if (!membership) {
      if (organizationId) throw ApiException.notFound('workspace', organizationId);
      throw new ApiException('insufficient_scope', 'This account is not a member of any workspace');
    }
    const refresh = await createRefreshSession(em, { userId: user.id, organizationId: membership.organization_id, ttlMs: REFRESH_TTL_MS });
    await recordAudit(em, {
      organizationId: membership.organization_id,
      action: 'session.created',
      resource: { type: 'session', id: refresh.id },
      changes: method ? { method: [null, method] } : undefined,
      actor: { type: 'user', id: user.id, email: user.email },
    });
    this.setRefreshCookie(reply, refresh.token);
    return this.answer(user, membership.organization_id, membership.role);
  }

  /** Rotates the refresh cookie and answers a new JWT. A refresh token used twice (already rotated) revokes its whole
   * family: whoever holds a copy is signed out with the owner. */
  async refresh(req: FastifyRequest, reply: FastifyReply): Promise<SessionDto> {
    const token = this.refreshCookie(req);
    if (!token) throw new ApiException('unauthorized', 'No refresh cookie: sign in again');
    const em = this.em.fork();
    const row = await findRefreshSession(em, token);
    if (!row || row.revoked_at || new Date(row.expires_at).getTime() <= Date.now()) {
      this.clearRefreshCookie(reply);
      throw new ApiException('unauthorized', 'The session has ended: sign in again');
    }
    if (row.rotated_at || !(await markRotated(em, row.id))) {
      await revokeFamily(em, row.family_id);
      this.clearRefreshCookie(reply);
      throw new ApiException('unauthorized', 'This refresh token was already used; every session it belongs to is signed out');
    }
    const membership = await membershipOf(em, row.organization_id, row.user_id);
    const user = await findUser(em, row.user_id);
    if (!user || !membership || membership.status !== 'active') {
      await revokeFamily(em, row.family_id);
      this.clearRefreshCookie(reply);
      throw new ApiException('unauthorized', 'You are no longer a member of this workspace: sign in again');
    }
    const next = await createRefreshSession(em, { userId: user.id, organizationId: row.organization_id, familyId: row.family_id, ttlMs: REFRESH_TTL_MS });
    this.setRefreshCookie(reply, next.token);
    return this.answer(user, row.organization_id, membership.role);
  }

  /** A JWT for another workspace of the same user; the refresh cookie, when sent, follows to that workspace. */
  async switchWorkspace(req: FastifyRequest, reply: FastifyReply, auth: AuthContext, organizationId: string): Promise<SessionDto> {
    const userId = auth.actor?.id;
    const em = this.em.fork();
    const user = userId ? await findUser(em, userId) : null;
    if (!user) throw new ApiException('unauthorized', 'Switching workspaces needs a session of a Scanlink user');
    const membership = await membershipOf(em, organizationId, user.id);
    if (!membership || membership.status !== 'active') throw ApiException.notFound('workspace', organizationId);
    const token = this.refreshCookie(req);
    const row = token ? await findRefreshSession(em, token) : null;
    if (row && row.user_id === user.id && !row.revoked_at && !row.rotated_at && (await markRotated(em, row.id))) {
      const next = await createRefreshSession(em, { userId: user.id, organizationId, familyId: row.family_id, ttlMs: REFRESH_TTL_MS });
      this.setRefreshCookie(reply, next.token);
    }
    return this.answer(user, organizationId, membership.role);
  }

  /** Ends this session (the cookie's family), or with `all` every session of the user. */
  async signOut(req: FastifyRequest, reply: FastifyReply, all: boolean): Promise<void> {
    const em = this.em.fork();
    const token = this.refreshCookie(req);
    const row = token ? await findRefreshSession(em, token) : null;
    // Only a live cookie (not revoked, rotated or expired) speaks for its user: an ended session cannot end the others.
    const live = row !== null && !row.revoked_at && !row.rotated_at && new Date(row.expires_at).getTime() > Date.now();
    let userId = live ? row.user_id : undefined;
    if (all && !userId) {
      const bearer = req.headers.authorization;
      if (bearer) userId = (await this.tokens.verify(bearer)).userId;
    }
    if (all ? !userId : !row) {
      throw new ApiException(
        'unauthorized',
        all
          ? 'No session to end: send the refresh cookie or a valid session token'
          : 'No session to end: this request carries no valid refresh cookie, which names the session; to end every session of the user, send ?all=true with a session token',
      );
    }
    if (all && userId) await revokeUserSessions(em, userId);
    else if (row) await revokeFamily(em, row.family_id);
    this.clearRefreshCookie(reply);
  }

  async answer(user: UserRow, organizationId: string, role: Role): Promise<SessionDto> {
    const expiresAt = Math.floor(Date.now() / 1000) + SESSION_TOKEN_SECONDS;
    const token = await this.tokens.mint({
      organizationId,
      email: user.email,
      emailVerified: true,
      expiresInSeconds: SESSION_TOKEN_SECONDS,
      userId: user.id,
      role,
    });
    return {
      object: 'session',
      token,
      expires_at: new Date(expiresAt * 1000).toISOString(),
      user: { id: user.id, email: user.email, name: user.name },
      organization_id: organizationId,
      role,
    };
  }

  /** `Secure` unless the API itself is served over plain http (local development), where a browser would drop it. */
  private get secureCookie(): boolean {
    return this.config.env === 'production' || !this.config.apiBaseUrl.startsWith('http://');
  }

  setRefreshCookie(reply: FastifyReply, token: string): void {
    void reply.header(
      'set-cookie',
      serializeCookie(REFRESH_COOKIE, token, {
        httpOnly: true,
        sameSite: 'strict',
        secure: this.secureCookie,
        path: REFRESH_COOKIE_PATH,
        maxAge: REFRESH_TTL_MS / 1000,
      }),
    );
  }

  private clearRefreshCookie(reply: FastifyReply): void {
    void reply.header(
      'set-cookie',
      serializeCookie(REFRESH_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: this.secureCookie, path: REFRESH_COOKIE_PATH, maxAge: 0 }),
    );
  }

  private refreshCookie(req: FastifyRequest): string | undefined {
    const header = req.headers.cookie;
    if (!header) return undefined;
    const value = parseCookies(header)[REFRESH_COOKIE];
    return value && /^[0-9A-Za-z]{20,100}$/.test(value) ? value : undefined;
  }

  // Failed sign-ins: fixed one-minute windows in Redis, per e-mail and per client address (both as keyed hashes).
  private failureKeys(email: string, ip: string | undefined, kind: 'fail' | 'link'): string[] {
    const minute = Math.floor(Date.now() / 60_000);
    return [
      `signin:${kind}:e:${clientAddressKey(this.config.appSecret, `email:${email}`)}:${minute}`,
      `signin:${kind}:a:${clientAddressKey(this.config.appSecret, ip)}:${minute}`,
    ];
  }

  private async throttled(email: string, ip: string | undefined, kind: 'fail' | 'link' = 'fail'): Promise<boolean> {
    if (this.redis.status !== 'ready') return false;
    const counts = await this.redis.mget(...this.failureKeys(email, ip, kind)).catch(() => [] as (string | null)[]);
    return counts.some((c) => Number(c ?? 0) >= SIGN_IN_FAILURES_PER_MINUTE);
  }

  private async refuseWhenThrottled(email: string, ip: string | undefined): Promise<void> {
    if (await this.throttled(email, ip)) {
      const retryAfter = 60 - Math.floor((Date.now() % 60_000) / 1000);
      throw new ApiException('rate_limited', `Too many failed sign-ins: at most ${SIGN_IN_FAILURES_PER_MINUTE} a minute; try again later`, {
        retryAfter,
        limit: SIGN_IN_FAILURES_PER_MINUTE,
      });
    }
  }

  private async countFailure(email: string, ip: string | undefined, kind: 'fail' | 'link' = 'fail'): Promise<void> {
    if (this.redis.status !== 'ready') return;
    const multi = this.redis.multi();
    for (const key of this.failureKeys(email, ip, kind)) multi.incr(key).expire(key, 61);
    await multi.exec().catch(() => undefined);
  }
}
