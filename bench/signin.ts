/**
 * bench:signin — password hashing must not stall the api: sign-ins per second during bursts of 50 concurrent
 * sign-ins, and the p99 of unrelated API calls (GET /v1/me with a key) during the bursts against the same calls at
 * rest. Also what the session JWT check costs per request (in-process verification, and GET /v1/me with a session
 * token against the same with an API key).
 */
import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { createApiApp } from '../src/app/bootstrap';
import { loadConfig } from '../src/common/config/config';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { loadPlans } from '../src/modules/accounts/plans';
import { ensureOwner, upsertUser } from '../src/modules/members/members.repository';
import { hashPassword } from '../src/modules/members/passwords';
import { DashboardAuthService } from '../src/modules/tokens/dashboard-auth.service';
import { newId } from '../src/common/ids';
import { fmt, percentile, timeRequests } from './lib';

const USERS = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PASSWORD = 'correct horse battery staple';

async function main() {
  const plansFile = join(mkdtempSync(join(tmpdir(), 'bench-')), 'plans.json');
  writeFileSync(plansFile, JSON.stringify({ agency: { requests_per_minute: 1_000_000 } }));
  const config = loadConfig({ ...process.env, PLANS_FILE: plansFile, TRUST_PROXY: 'loopback' });
  const app = await createApiApp(config, { logLevel: 'silent' });
  await app.listen(0, '127.0.0.1');
  const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  const em = app.get(MikroORM).em.fork() as unknown as import('@mikro-orm/postgresql').EntityManager;
  const accounts = new AccountsService(em, loadPlans(plansFile));
  const org = await accounts.createOrganization({ name: 'Bench', plan: 'agency', email: 'owner@bench.example' });
  const { secret } = await accounts.createKey(org.id, { name: 'bench' });
  await ensureOwner(em, org.id, 'owner@bench.example');
  const hash = await hashPassword(PASSWORD);
  const emails: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = await upsertUser(em, `user${i}@bench.example`);
    await em.execute(`insert into memberships (id, organization_id, user_id, role, status) values (?, ?, ?, 'editor', 'active')`, [newId('mem'), org.id, user.id]);
    await em.execute('update users set password_hash = ? where id = ?', [hash, user.id]);
    emails.push(user.email);
  }

  const me = (authorization: string) => async () => {
    const res = await fetch(`${origin}/v1/me`, { headers: { authorization } });
    if (res.status !== 200) throw new Error(`/v1/me: ${res.status}`);
    await res.arrayBuffer();
  };
  const signIn = async (email: string, i: number) => {
    const res = await fetch(`${origin}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.0.${i % 250}.1` },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  };

  await timeRequests(100, me(`Bearer ${secret}`)); // warm-up
  const rest = await timeRequests(300, me(`Bearer ${secret}`));

  // Bursts of 50 concurrent sign-ins while one client keeps calling GET /v1/me.
  const during: number[] = [];
  let bursting = true;
  const prober = (async () => {
    while (bursting) {
      const t0 = performance.now();
      await me(`Bearer ${secret}`)();
      during.push(performance.now() - t0);
    }
  })();
  const t0 = performance.now();
  let token = '';
  for (let r = 0; r < ROUNDS; r++) {
    const tokens = await Promise.all(emails.map((e, i) => signIn(e, i)));
    token = tokens[0];
  }
  const seconds = (performance.now() - t0) / 1000;
  bursting = false;
  await prober;
  during.sort((a, b) => a - b);

  console.log(`\n${ROUNDS} bursts of ${USERS} concurrent password sign-ins (argon2id m=19456 t=2 p=1, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? 4})`);
  console.log(`  sign-ins per second:                ${((ROUNDS * USERS) / seconds).toFixed(1)}`);
  console.log(`  GET /v1/me at rest       p50 ${fmt(rest.p50)}  p99 ${fmt(rest.p99)}`);
  console.log(`  GET /v1/me during bursts p50 ${fmt(percentile(during, 50))}  p99 ${fmt(percentile(during, 99))}  (${during.length} calls)`);

  // The JWT check.
  const auth = app.get(DashboardAuthService);
  const header = `Bearer ${token}`;
  for (let i = 0; i < 2000; i++) await auth.verify(header);
  const n = 20_000;
  const v0 = performance.now();
  for (let i = 0; i < n; i++) await auth.verify(header);
  const perVerify = (performance.now() - v0) / n;
  await timeRequests(100, me(header));
  const withKey = await timeRequests(500, me(`Bearer ${secret}`));
  const withSession = await timeRequests(500, me(header));
  console.log(`\nSession token check`);
  console.log(`  JWT verification (HS256, in process): ${(perVerify * 1000).toFixed(1)} µs per call`);
  console.log(`  GET /v1/me with an API key        p50 ${fmt(withKey.p50)}  p99 ${fmt(withKey.p99)}`);
  console.log(`  GET /v1/me with a session token   p50 ${fmt(withSession.p50)}  p99 ${fmt(withSession.p99)}`);
  await app.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
