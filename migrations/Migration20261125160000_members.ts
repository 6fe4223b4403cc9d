import { Migration } from '@mikro-orm/migrations';

/** People in workspaces (docs/members.md): users, memberships with a role, refresh sessions, one-time sign-in and
 * invitation tokens (stored hashed). */
export class Migration20261125160000_members extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table users (
        id text primary key,
        email text not null unique check (email = lower(email)),
        name text,
        password_hash text,
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now()
      );`);
    this.addSql(`
      create table memberships (
        id text primary key,
        organization_id text not null references organizations(id) on delete cascade,
        user_id text not null references users(id) on delete cascade,
        role text not null check (role in ('owner','admin','editor','viewer')),
        status text not null check (status in ('active','invited')),
        invited_by text references users(id) on delete set null,
        invitation_expires_at timestamptz(3),
        created_at timestamptz(3) not null default now(),
        updated_at timestamptz(3) not null default now(),
        unique (organization_id, user_id)
      );`);
    this.addSql('create index memberships_org_created_idx on memberships (organization_id, created_at desc, id desc);');
    this.addSql('create index memberships_user_idx on memberships (user_id);');
    // One row per refresh token; a family is the chain of rotations of one sign-in.
    this.addSql(`
      create table user_sessions (
        id text primary key,
        family_id text not null,
        user_id text not null references users(id) on delete cascade,
        organization_id text not null references organizations(id) on delete cascade,
        token_hash text not null unique,
        expires_at timestamptz(3) not null,
        rotated_at timestamptz(3),
        revoked_at timestamptz(3),
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index user_sessions_family_idx on user_sessions (family_id);');
    this.addSql('create index user_sessions_user_idx on user_sessions (user_id);');
    this.addSql(`
      create table auth_tokens (
        id text primary key,
        purpose text not null check (purpose in ('sign_in','invitation')),
        token_hash text not null unique,
        user_id text not null references users(id) on delete cascade,
        membership_id text references memberships(id) on delete cascade,
        expires_at timestamptz(3) not null,
        used_at timestamptz(3),
        created_at timestamptz(3) not null default now()
      );`);
    this.addSql('create index auth_tokens_user_idx on auth_tokens (user_id);');
    // Workspaces created before this migration get their owner as a user.
    this.addSql(`
      insert into users (id, email, created_at)
      select distinct on (lower(owner_email)) 'usr_' || substr(md5(random()::text || id), 1, 20), lower(owner_email), created_at
      from organizations order by lower(owner_email), created_at
      on conflict (email) do nothing;`);
    this.addSql(`
      insert into memberships (id, organization_id, user_id, role, status, created_at)
      select 'mem_' || substr(md5(random()::text || o.id), 1, 20), o.id, u.id, 'owner', 'active', o.created_at
      from organizations o join users u on u.email = lower(o.owner_email)
      on conflict do nothing;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists auth_tokens;');
    this.addSql('drop table if exists user_sessions;');
    this.addSql('drop table if exists memberships;');
    this.addSql('drop table if exists users;');
  }
}
