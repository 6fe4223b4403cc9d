import 'reflect-metadata';
import type { Redis } from 'ioredis';
import { parseArgs } from 'node:util';
import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { AppConfig, loadConfig } from './common/config/config';
import { ApiException } from './common/errors/api.exception';
import { ormConfig } from './mikro-orm.config';
import { AccountsService } from './modules/accounts/accounts.service';
import { setPlan } from './modules/accounts/organizations.repository';
import { PLAN_IDS, PlanId } from './common/auth/plan';
import { loadPlans } from './modules/accounts/plans';
import { DashboardAuthService } from './modules/tokens/dashboard-auth.service';
import { createAuthToken, ensureOwner, findUserByEmail, LINK_TTL_MS, membershipOf } from './modules/members/members.repository';
import { recordAudit } from './modules/audit/audit.repository';
import { asActor } from './common/audit/audit-context';
import { sweepStorageDeletes } from './modules/qr-codes/image-references.repository';
import { pauseAboveLimit, purgeTrash, type PausedCode } from './modules/qr-codes/qr-lifecycle';
import { CHANNELS } from './common/queue/channels';
import { createRedis } from './common/redis/redis.provider';
import { createStorage } from './modules/images/storage/storage.factory';
import { findGs1Conflicts, grantPrefix, isCompanyPrefix, listPrefixes, revokePrefix } from './modules/qr-codes/gs1-ownership.repository';

/** Redis, reachable now (a PING answered), or a service_unavailable refusal before anything is written: a change the
 * scan processes are not told about would keep serving paused codes until their cache entries expire. */
async function reachableRedis(config: AppConfig): Promise<Redis> {
  // Warnings to stderr: stdout carries only the command's JSON.
  const redis = createRedis(config.redisUrl, 'cli', (m) => process.stderr.write(`${m}\n`));
  try {
    await redis.ping();
    return redis;
  } catch (err) {
    redis.disconnect();
    throw new CommandError('service_unavailable', `Redis is unreachable (${(err as Error).message}); nothing was changed`);
  }
}

/** Tells the scan processes to drop the paused codes. After the commit, a failure is a warning, not a failed command. */
async function publishInvalidations(redis: Redis, codes: PausedCode[]): Promise<void> {
  try {
    for (const c of codes) await redis.publish(CHANNELS.qrInvalidate, JSON.stringify({ id: c.id, short_code: c.short_code, domain_id: c.domain_id, gs1_key: c.gs1_key }));
  } catch (err) {
    process.stderr.write(`warning: the plan changed, but the scan processes were not told (${(err as Error).message}); they drop the paused codes when their cache entries expire (SCAN_CACHE_TTL_SECONDS)\n`);
  }
}

/** Deletes purged objects queued in storage_deletes; one that fails stays queued for the worker's sweep. */
async function deleteStoredObjects(em: EntityManager, config: AppConfig, keys: string[]): Promise<void> {
  if (!keys.length) return;
  const storage = createStorage(config);
  await sweepStorageDeletes(em, (key) => storage.delete(key), { keys });
}

/** The operator CLI. Contract (README "CLI"): exactly one JSON document on stdout, logs on stderr, exit 0 on success,
 * non-zero with {"error":{…}} on failure. */

type Flags = Record<string, string | boolean | undefined>;

class UsageError extends Error {}

/** A refusal with its own error code (exit 1), e.g. a prefix another workspace holds. */
class CommandError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extras: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function companyPrefix(flags: Flags): string {
  const p = required(flags, 'prefix');
  if (!isCompanyPrefix(p)) throw new UsageError('--prefix must be a GS1 company prefix: 4 to 12 digits');
  return p;
}

const COMMANDS: Record<string, { flags: Record<string, { type: 'string' | 'boolean' }>; usage: string }> = {
  'org:create': {
    usage: 'org:create --name N --plan free|plus|pro|ultra|agency --email E [--env live|test] [--scopes a,b]',
    flags: { name: { type: 'string' }, plan: { type: 'string' }, email: { type: 'string' }, env: { type: 'string' }, scopes: { type: 'string' } },
  },
  'key:create': {
    usage: 'key:create --org ORG [--name N] [--scopes a,b] [--env live|test] [--expires-in-days D]',
    flags: { org: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, env: { type: 'string' }, 'expires-in-days': { type: 'string' } },
  },
  'org:plan': {
    usage: 'org:plan --org ORG --plan free|plus|pro|ultra|agency',
    flags: { org: { type: 'string' }, plan: { type: 'string' } },
  },
  'dashboard-token': {
    usage: 'dashboard-token --org ORG [--email E] [--unverified] [--expires-in S]',
    flags: { org: { type: 'string' }, email: { type: 'string' }, unverified: { type: 'boolean' }, 'expires-in': { type: 'string' } },
  },
  'trash:empty': { usage: 'trash:empty --org ORG', flags: { org: { type: 'string' } } },
  'gs1:prefix:add': { usage: 'gs1:prefix:add --org ORG --prefix DIGITS', flags: { org: { type: 'string' }, prefix: { type: 'string' } } },
  'gs1:prefix:list': { usage: 'gs1:prefix:list [--org ORG]', flags: { org: { type: 'string' } } },
  'gs1:prefix:remove': { usage: 'gs1:prefix:remove --prefix DIGITS [--org ORG]', flags: { org: { type: 'string' }, prefix: { type: 'string' } } },
  'gs1:conflicts': { usage: 'gs1:conflicts', flags: {} },
  'sign-in-link': { usage: 'sign-in-link --email E', flags: { email: { type: 'string' } } },
};

function required(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

function env(flags: Flags): 'live' | 'test' {
  const v = flags.env ?? 'live';
  if (v !== 'live' && v !== 'test') throw new UsageError('--env must be live or test');
  return v;
}

function plan(flags: Flags): PlanId {
  const p = required(flags, 'plan');
  if (!(PLAN_IDS as readonly string[]).includes(p)) throw new UsageError(`--plan must be one of ${PLAN_IDS.join(', ')}`);
  return p as PlanId;
}

function scopes(flags: Flags): string[] | undefined {
  return typeof flags.scopes === 'string' ? flags.scopes.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
}

function nonNegativeInt(flags: Flags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number ≥ 0`);
  return Number(v);
}

export async function runCommand(command: string, flags: Flags, config: AppConfig, orm: MikroORM): Promise<unknown> {
  const plans = loadPlans(config.plansFile);
  const accounts = new AccountsService(orm.em.fork() as never, plans);
  switch (command) {
    case 'org:create': {
      // Every flag checked before anything is written: a refused --env or --scopes leaves no workspace behind.
      const environment = env(flags);
      const keyScopes = accounts.validateScopes(scopes(flags));
      const org = await accounts.createOrganization({ name: required(flags, 'name'), plan: plan(flags), email: required(flags, 'email') });
      const { key, secret } = await accounts.createKey(org.id, { name: 'Default key', scopes: keyScopes, environment });
      // The e-mail's user (created when new) becomes the workspace's owner.
      await ensureOwner(orm.em.fork() as never, org.id, org.ownerEmail);
      return { organization_id: org.id, key_id: key.id, api_key: secret };
    }
    case 'key:create': {
      const org = await accounts.getOrganization(required(flags, 'org'));
      const { key, secret } = await accounts.createKey(org.id, {
        name: typeof flags.name === 'string' ? flags.name : undefined,
        scopes: scopes(flags),
        environment: env(flags),
        expiresInDays: nonNegativeInt(flags, 'expires-in-days'),
      });
      return { key_id: key.id, api_key: secret };
    }
    case 'dashboard-token': {
      const org = await accounts.getOrganization(required(flags, 'org'));
      const expiresIn = nonNegativeInt(flags, 'expires-in') ?? 3600;
      const email = typeof flags.email === 'string' ? flags.email : org.ownerEmail;
      // A member's token names the user and their role; an address that is no member gets an operator token (owner).
      const em = orm.em.fork() as never;
      const user = await findUserByEmail(em, email);
      const membership = user ? await membershipOf(em, org.id, user.id) : null;
      const token = await new DashboardAuthService(config).mint({
        organizationId: org.id,
        email,
        emailVerified: flags.unverified !== true,
        expiresInSeconds: expiresIn,
        ...(user && membership?.status === 'active' ? { userId: user.id, role: membership.role } : {}),
      });
      return { token };
    }
    case 'org:plan': {
      const org = await accounts.getOrganization(required(flags, 'org'));
      const next = plan(flags);
      const redis = await reachableRedis(config);
      try {
        // The plan, the pauses and their audit entries: all of them or none.
        const paused = await orm.em.fork().transactional(async (em) => {
          await setPlan(em, org.id, next);
          const codes = await pauseAboveLimit(em, org.id, plans[next].dynamic_qr_limit, plans[next].gs1_limit);
          await recordAudit(
            em,
            { organizationId: org.id, action: 'organization.plan_changed', resource: { type: 'organization', id: org.id }, changes: { plan: [org.plan, next] } },
            ...codes.map((p) => ({ organizationId: org.id, action: 'qr_code.paused', resource: { type: 'qr_code', id: p.id }, changes: { status: ['live', 'paused'] as [unknown, unknown] } })),
          );
          return codes;
        });
        if (paused.length) await publishInvalidations(redis, paused);
        return { organization_id: org.id, plan: next, paused: paused.map((p) => p.id) };
      } finally {
        redis.disconnect();
      }
    }
    case 'trash:empty': {
      const org = await accounts.getOrganization(required(flags, 'org'));
      const { deleted, orphanKeys } = await purgeTrash(orm.em.fork(), { organizationId: org.id, gs1RetirementDays: config.gs1RetirementDays });
      await deleteStoredObjects(orm.em.fork(), config, orphanKeys);
      return { deleted };
    }
    case 'gs1:prefix:add': {
      const org = await accounts.getOrganization(required(flags, 'org'));
      const result = await grantPrefix(orm.em.fork(), org.id, companyPrefix(flags));
      if ('heldBy' in result) {
        throw new CommandError('gs1_prefix_taken', `The prefix ${result.heldBy.prefix} (overlapping ${String(flags.prefix)}) is granted to another workspace; a prefix belongs to one workspace`, {
          prefix: result.heldBy.prefix,
        });
      }
      return result.granted;
    }
    case 'gs1:prefix:list': {
      const org = typeof flags.org === 'string' ? await accounts.getOrganization(flags.org) : undefined;
      return { prefixes: await listPrefixes(orm.em.fork(), org?.id) };
    }
    case 'gs1:prefix:remove': {
      const org = typeof flags.org === 'string' ? await accounts.getOrganization(flags.org) : undefined;
      const prefix = companyPrefix(flags);
      const removed = await revokePrefix(orm.em.fork(), prefix, org?.id);
      if (!removed) throw new ApiException('not_found', `No such granted prefix: '${prefix}'${org ? ` for ${org.id}` : ''}`);
      return { ...removed, removed: true };
    }
    case 'gs1:conflicts': {
      const conflicts = await findGs1Conflicts(orm.em.fork());
      return { conflicts, count: conflicts.length };
    }
    case 'sign-in-link': {
      const em = orm.em.fork() as never;
      const user = await findUserByEmail(em, required(flags, 'email'));
      if (!user) throw new ApiException('not_found', `No user with the e-mail ${String(flags.email)}`);
      const token = await createAuthToken(em, 'sign_in', user.id, LINK_TTL_MS);
      return {
        url: `${new URL(config.apiBaseUrl).origin}/app/sign-in?token=${token}`,
        token,
        expires_at: new Date(Date.now() + LINK_TTL_MS).toISOString(),
      };
    }
    default:
      throw new UsageError(`Unknown command '${command}'. Commands:\n${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n')}`);
  }
}

/** A failure: the JSON error on stdout for scripts, the message in plain text on stderr for people. */
function fail(code: string, message: string, exitCode: number, extra: Record<string, unknown> = {}): never {
  process.stderr.write(`${message}\n`);
  process.stdout.write(`${JSON.stringify({ error: { code, message, ...extra } })}\n`);
  process.exit(exitCode);
}

const HELP = [
  'Scanlink operator CLI',
  '',
  'Usage: npm run -s cli -- <command> [flags]',
  '',
  'Commands:',
  ...Object.values(COMMANDS).map((c) => `  ${c.usage}`),
  '',
  'Prints exactly one JSON document on stdout (logs go to stderr); exits 0 on success, non-zero with {"error": {…}} on',
  'failure. Finds the databases of a running `npm run local` by itself; otherwise set DATABASE_URL and REDIS_URL.',
  '',
].join('\n');

const NO_DATABASE =
  'No database to work on: start `npm run local` in another terminal (the CLI then finds its PostgreSQL and Redis), ' +
  'or set DATABASE_URL and REDIS_URL.';

export async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(HELP);
    process.exit(0);
  }
  // Own names only: `constructor` or `__proto__` is an unknown command, not an Object.prototype member.
  const spec = command && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!spec) {
    const what = command ? `Unknown command '${command}'.` : 'No command given.';
    fail('usage', `${what} Commands:\n${Object.values(COMMANDS).map((c) => `  ${c.usage}`).join('\n')}\n(npm run -s cli -- --help for more)`, 64, {
      commands: Object.keys(COMMANDS),
    });
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`Usage: npm run -s cli -- ${spec.usage}\n`);
    process.exit(0);
  }
  let flags: Flags;
  try {
    ({ values: flags } = parseArgs({ args: rest, options: spec.flags, strict: true, allowPositionals: false }) as { values: Flags });
  } catch (err) {
    fail('usage', `${(err as Error).message}. Usage: ${spec.usage}`, 64);
  }
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) fail('no_database', NO_DATABASE, 78);
  let config: AppConfig;
  try {
    config = loadConfig();
    loadPlans(config.plansFile); // a malformed PLANS_FILE is a configuration error too (exit 78, no stack)
  } catch (err) {
    fail('config', (err as Error).message, 78);
  }
  const orm = await MikroORM.init(ormConfig(config.databaseUrl, { poolMax: 2 })).catch((err: Error) =>
    fail('database_unavailable', `Cannot connect to PostgreSQL: ${err.message}`, 69),
  );
  try {
    const result = await asActor({ type: 'system', id: 'cli' }, () => runCommand(command, flags, config, orm));
    process.stdout.write(`${JSON.stringify(result)}\n`);
    await orm.close();
    process.exit(0);
  } catch (err) {
    await orm.close().catch(() => undefined);
    if (err instanceof UsageError) fail('usage', `${err.message}. Usage: ${spec.usage}`, 64);
    if (err instanceof CommandError) fail(err.code, err.message, 1, err.extras);
    if (err instanceof ApiException) {
      const { retryAfter: _r, ...extras } = err.extras;
      fail(err.code, err.message, 1, extras);
    }
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    fail('internal_error', (err as Error).message, 1);
  }
}

if (require.main === module) void main();
