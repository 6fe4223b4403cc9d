import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyReply } from 'fastify';
import type { AuthContext } from '../../common/auth/auth-context';
import { MANAGER_ROLES, type Role } from '../../common/auth/roles';
import { SESSION_AUTHENTICATOR, type SessionAuthenticator } from '../../common/auth/session-authenticator';
import { APP_CONFIG, AppConfig } from '../../common/config/config';
import { ApiException } from '../../common/errors/api.exception';
import { CursorCodec, queryFingerprint } from '../../common/http/cursor';
import { listOf, type ListEnvelope } from '../../common/http/list';
import { parseLimit } from '../../common/http/pagination';
import { findOrganization, lockOrganization } from '../accounts/organizations.repository';
import { PLAN_CATALOG, type PlanCatalog } from '../accounts/plans';
import { MailService } from '../mail/mail.service';
import { recordAudit } from '../audit/audit.repository';
import type { DeletedMemberDto, MemberDto, UserDto } from './dto/members.dto';
import {
  activeMembershipsOf,
  activeOwners,
  consumeAuthToken,
  createAuthToken,
  findMembership,
  findUser,
  membershipOf,
  pageMembers,
  revokeMemberSessions,
  seatsTaken,
  upsertUser,
  type MembershipRow,
} from './members.repository';
import { newId } from '../../common/ids';
import { checkPassword, hashPassword, passwordProblem } from './passwords';
import { callerRole } from './member-caller';
import { SessionsService } from './sessions.service';
import type { SessionDto } from './dto/members.dto';

export const INVITATION_TTL_MS = 7 * 86_400_000;

export function presentMember(m: MembershipRow): MemberDto {
  return {
    id: m.id,
    object: 'member',
    // A pending invitation shows only the address it went to: the name is the person's own (perhaps given in another
    // workspace) and appears once they accept.
    user: { id: m.user_id, email: m.email, name: m.status === 'active' ? m.name : null },
    role: m.role,
    status: m.status,
    invitation_expires_at: m.status === 'invited' && m.invitation_expires_at ? new Date(m.invitation_expires_at).toISOString() : null,
    created_at: new Date(m.created_at).toISOString(),
  };
}

/** People in a workspace: the member list, invitations, role changes, removal; and the signed-in user's own record. */
@Injectable()
export class MembersService {
  private readonly logger = new Logger(MembersService.name);

  constructor(
    private readonly em: EntityManager,
    private readonly cursors: CursorCodec,
    private readonly mail: MailService,
    private readonly sessions: SessionsService,
    @Inject(SESSION_AUTHENTICATOR) private readonly auth: SessionAuthenticator,
    @Inject(PLAN_CATALOG) private readonly plans: PlanCatalog,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async list(auth: AuthContext, query: { limit?: string; cursor?: string }): Promise<ListEnvelope<MemberDto>> {
    await callerRole(this.auth, auth, ['owner', 'admin', 'editor', 'viewer']);
    const limit = parseLimit(query.limit);
    const fingerprint = queryFingerprint(auth, { resource: 'members' });
    let after: { at: Date; id: string } | undefined;
    if (query.cursor !== undefined) {
      const pos = this.cursors.decode(query.cursor, fingerprint);
      const at = new Date(String(pos.v));
      if (Number.isNaN(at.getTime())) throw ApiException.invalid('cursor', 'Invalid cursor: it is malformed');
      after = { at, id: pos.id };
    }
    const rows = await pageMembers(this.em.fork(), auth.organizationId, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const next = rows.length > limit && last ? this.cursors.encode({ v: new Date(last.created_at).toISOString(), id: last.id }, fingerprint) : null;
    return listOf(page.map(presentMember), rows.length > limit, next);
  }

  /** Invites by e-mail (7 days). The seat limit counts active members and pending invitations. */
  async invite(auth: AuthContext, body: { email: string; role: Role }): Promise<MemberDto> {
    const myRole = await callerRole(this.auth, auth, MANAGER_ROLES);
    if (body.role === 'owner' && myRole !== 'owner') throw new ApiException('insufficient_scope', 'Only an owner can invite an owner');
    const { member, token, orgName } = await this.em.fork().transactional(async (em) => {
      await lockOrganization(em, auth.organizationId);
      const org = await findOrganization(em, auth.organizationId);
      if (!org) throw ApiException.notFound('workspace', auth.organizationId);
      const user = await upsertUser(em, body.email);
      const existing = await membershipOf(em, auth.organizationId, user.id);
      if (existing?.status === 'active') throw ApiException.invalid('email', `${user.email} is already a member of this workspace`);
      const pending = existing && existing.invitation_expires_at && new Date(existing.invitation_expires_at).getTime() > Date.now();
      if (!pending) {
        const plan = this.plans[org.plan];
        const taken = await seatsTaken(em, auth.organizationId);
        if (plan.seats !== null && taken + 1 > plan.seats) {
          throw new ApiException('plan_limit_reached', `The ${plan.id} plan includes ${plan.seats} seat(s), counting pending invitations`, {
            limit: plan.seats,
            current_count: taken,
            requested: 1,
            plan_id: plan.id,
          });
        }
      }
      const expires = new Date(Date.now() + INVITATION_TTL_MS);
      let id = existing?.id;
      if (existing) {
        await em.execute(`update memberships set role = ?, invitation_expires_at = ?, invited_by = ?, updated_at = now() where id = ?`, [
          body.role,
          expires,
          auth.actor?.id.startsWith('usr_') ? auth.actor.id : null,
          existing.id,
        ]);
        // An invitation re-sent: earlier links stop working.
        await em.execute(`update auth_tokens set used_at = now() where membership_id = ? and used_at is null`, [existing.id]);
      } else {
        id = newId('mem');
        await em.execute(
          `insert into memberships (id, organization_id, user_id, role, status, invited_by, invitation_expires_at) values (?, ?, ?, ?, 'invited', ?, ?)`,
          [id, auth.organizationId, user.id, body.role, auth.actor?.id.startsWith('usr_') ? auth.actor.id : null, expires],
        );
      }
      const token = await createAuthToken(em, 'invitation', user.id, INVITATION_TTL_MS, id!);
      await recordAudit(em, {
        organizationId: auth.organizationId,
        action: 'member.invited',
        resource: { type: 'member', id: id! },
        // A new invitation: every field from null; a renewed one: only what changed (the role), else nothing but the new link.
        changes: existing
          ? existing.role === body.role
            ? {}
            : { role: [existing.role, body.role] }
          : { email: [null, user.email], role: [null, body.role], status: [null, 'invited'] },
      });
      return { member: (await findMembership(em, auth.organizationId, id!))!, token, orgName: org.name };
    });
    const link = `${new URL(this.config.apiBaseUrl).origin}/app/accept?token=${token}`;
    await this.mail
      .send({
        to: member.email,
        subject: `You are invited to ${orgName} on Scanlink`,
        text: `You have been invited to join ${orgName} on Scanlink as ${member.role}.\n\nAccept within 7 days:\n\n${link}\n`,
      })
      .catch((err: Error) => this.logger.warn(`invitation mail failed: ${err.message}`));
    return presentMember(member);
  }

  async changeRole(auth: AuthContext, id: string, role: Role): Promise<MemberDto> {
    const myRole = await callerRole(this.auth, auth, MANAGER_ROLES);
    return this.em.fork().transactional(async (em) => {
      await lockOrganization(em, auth.organizationId);
      const member = await findMembership(em, auth.organizationId, id);
      if (!member) throw ApiException.notFound('member', id);
      if (myRole !== 'owner' && (member.role === 'owner' || role === 'owner')) {
        throw new ApiException('insufficient_scope', 'Only an owner can grant or take away the owner role');
      }
      if (member.role === 'owner' && role !== 'owner' && member.status === 'active' && (await activeOwners(em, auth.organizationId)) <= 1) {
        throw new ApiException('last_owner', 'This is the last owner of the workspace: make another member owner first');
      }
      await em.execute('update memberships set role = ?, updated_at = now() where id = ?', [role, id]);
      if (member.role !== role) {
        await recordAudit(em, { organizationId: auth.organizationId, action: 'member.role_changed', resource: { type: 'member', id }, changes: { role: [member.role, role] } });
      }
      return presentMember({ ...member, role });
    });
  }

  /** Removes a member or cancels an invitation; members may also remove themselves (leave). */
  async remove(auth: AuthContext, id: string): Promise<DeletedMemberDto> {
    return this.em.fork().transactional(async (em) => {
      const member = await findMembership(em, auth.organizationId, id);
      const self = member !== null && member.user_id === auth.actor?.id;
      // Role first: a viewer removing anyone but themselves is a 403 whether or not the id exists.
      const myRole = await callerRole(this.auth, auth, self ? ['owner', 'admin', 'editor', 'viewer'] : MANAGER_ROLES);
      if (!member) throw ApiException.notFound('member', id);
      if (!self && myRole !== 'owner' && member.role === 'owner') throw new ApiException('insufficient_scope', 'Only an owner can remove an owner');
      await lockOrganization(em, auth.organizationId);
      if (member.role === 'owner' && member.status === 'active' && (await activeOwners(em, auth.organizationId)) <= 1) {
        throw new ApiException('last_owner', 'This is the last owner of the workspace: make another member owner first');
      }
      await em.execute('delete from memberships where id = ?', [id]);
      await recordAudit(em, {
        organizationId: auth.organizationId,
        action: 'member.removed',
        resource: { type: 'member', id },
        changes: { email: [member.email, null], role: [member.role, null], status: [member.status, null] },
      });
      await revokeMemberSessions(em, member.user_id, auth.organizationId);
      return { id, object: 'member', deleted: true };
    });
  }

  /** Accepts an invitation: the membership becomes active; a new user may set a name and a password. Answers a
   * session in that workspace. */
  async accept(reply: FastifyReply, body: { token: string; name?: string; password?: string }): Promise<SessionDto> {
    if (body.password !== undefined) {
      const problem = passwordProblem(body.password);
      if (problem) throw ApiException.invalid('password', problem);
    }
    const passwordHash = body.password !== undefined ? await hashPassword(body.password) : undefined;
    return this.em.fork().transactional(async (em) => {
      const used = await consumeAuthToken(em, 'invitation', body.token);
      const member = used?.membership_id ? await em.execute<MembershipRow[]>('select * from memberships where id = ? for update', [used.membership_id]) : [];
      const row = member[0];
      if (!used || !row || row.status !== 'invited' || !row.invitation_expires_at || new Date(row.invitation_expires_at).getTime() <= Date.now()) {
        throw new ApiException('unauthorized', 'This invitation is unknown, used or expired: ask for a new one');
      }
      const user = (await findUser(em, used.user_id))!;
      if (passwordHash !== undefined && user.password_hash) {
        throw ApiException.invalid('password', 'This account already has a password: sign in with it, or change it with PATCH /v1/users/me');
      }
      await em.execute(`update memberships set status = 'active', invitation_expires_at = null, updated_at = now() where id = ?`, [row.id]);
      const name = body.name?.trim() ? body.name.trim() : user.name;
      await recordAudit(em, {
        organizationId: row.organization_id,
        action: 'member.joined',
        resource: { type: 'member', id: row.id },
        changes: {
          status: ['invited', 'active'],
          ...(passwordHash !== undefined ? { password: [null, 'set'] } : {}),
          ...(name !== user.name ? { name: [user.name, name] } : {}),
        },
        actor: { type: 'user', id: user.id, email: user.email },
      });
      await em.execute('update users set name = ?, password_hash = coalesce(?, password_hash), updated_at = now() where id = ?', [
        name,
        passwordHash ?? null,
        user.id,
      ]);
      return this.sessions.start(em, reply, { ...user, name }, row.organization_id, 'invitation');
    });
  }

  async me(auth: AuthContext): Promise<UserDto> {
    const em = this.em.fork();
    const user = auth.actor ? await findUser(em, auth.actor.id) : null;
    if (!user) throw new ApiException('unauthorized', 'This session does not belong to a Scanlink user');
    const memberships = await activeMembershipsOf(em, user.id);
    return {
      id: user.id,
      object: 'user',
      email: user.email,
      name: user.name,
      has_password: user.password_hash !== null,
      memberships: memberships.map((m) => ({ organization_id: m.organization_id, name: m.name, role: m.role })),
    };
  }

  async updateMe(auth: AuthContext, body: { name?: string; password?: string; current_password?: string }): Promise<UserDto> {
    const em = this.em.fork();
    const user = auth.actor ? await findUser(em, auth.actor.id) : null;
    if (!user) throw new ApiException('unauthorized', 'This session does not belong to a Scanlink user');
    let passwordHash: string | undefined;
    if (body.password !== undefined) {
      const problem = passwordProblem(body.password);
      if (problem) throw ApiException.invalid('password', problem);
      if (user.password_hash) {
        if (body.current_password === undefined) throw ApiException.invalid('current_password', 'current_password is required to change the password');
        if (!(await checkPassword(user.password_hash, body.current_password))) {
          throw ApiException.invalid('current_password', 'current_password is not correct');
        }
      }
      passwordHash = await hashPassword(body.password);
    }
    const name = body.name !== undefined ? body.name.trim() || null : user.name;
    await em.execute('update users set name = ?, password_hash = coalesce(?, password_hash), updated_at = now() where id = ?', [name, passwordHash ?? null, user.id]);
    return this.me(auth);
  }
}
