import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { gs1CheckDigit } from '../../src/modules/gs1/check-digits';
import { randomGtin } from '../../src/modules/gs1/testing/random-gtin';
import { createCode, createOrg, db, http, isolatedRedisUrl, startApi, startScan, TestApp, TestOrg } from '../setup/app';

const ROOT = join(__dirname, '..', '..');
const execFileP = promisify(execFile);

/** Runs the operator CLI from source, as `npm run -s cli` runs it compiled. Asynchronously: a blocking spawn would
 * freeze the api this test process hosts, and a kept-alive connection could then be reset under a request. */
async function cli(args: string[]): Promise<{ status: number | null; json: any }> {
  const r = await execFileP(process.execPath, [join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', 'cli.ts'), ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  }).then(
    (ok) => ({ status: 0 as number | null, stdout: ok.stdout }),
    (err: { code?: number | string | null; stdout?: string }) => ({ status: typeof err.code === 'number' ? err.code : null, stdout: err.stdout ?? '' }),
  );
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status, json };
}

/** A GS1 company prefix nobody else in this run holds (prefixes are granted across the whole database). */
const randomPrefix = (): string => `9${Array.from({ length: 6 }, () => randomInt(10)).join('')}`;
/** A valid GTIN-14 under a company prefix (indicator digit 0). */
function gtinUnder(prefix: string): string {
  const body = `0${prefix}${Array.from({ length: 12 - prefix.length }, () => randomInt(10)).join('')}`;
  return body + gs1CheckDigit(body);
}

/** GS1 ownership (docs/gs1.md "Ownership"; issue 25 item 1): a primary key's subtree belongs to one workspace per
 * host, the resolver never mixes two workspaces' entries, and operators can require granted company prefixes. */
describe('GS1 ownership of a primary key', () => {
  let api: TestApp;
  let scan: TestApp;
  let a: TestOrg;
  let b: TestOrg;

  beforeAll(async () => {
    const REDIS_URL = isolatedRedisUrl(16);
    [api, scan] = await Promise.all([startApi({ REDIS_URL }), startScan({ REDIS_URL })]);
    [a, b] = await Promise.all([createOrg(api, { plan: 'pro', name: 'Brand owner' }), createOrg(api, { plan: 'pro', name: 'Hijacker' })]);
  });
  afterAll(async () => {
    await Promise.all([scan?.close(), api?.close()]);
  });

  const gs1 = (gtin: string, extra: Record<string, unknown> = {}) => ({
    type: 'gs1',
    primary_key: { ai: '01', value: gtin },
    destination: 'https://brand.example/product',
    ...extra,
  });
  const post = (who: TestOrg, body: Record<string, unknown>, origin = api.origin) => http(origin, 'POST', '/v1/qr-codes', { key: who.apiKey, body });
  const resolve = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${scan.origin}${path}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0', ...headers } });

  it("refuses another workspace the primary key and every qualified path under it (409), and A's lot keeps resolving to A", async () => {
    const gtin = randomGtin();
    await createCode(api, a, gs1(gtin, { overrides: [{ path: '10/LOT42', href: 'https://brand.example/lot42' }] }));
    for (const extra of [
      { qualifiers: [{ ai: '10', value: 'LOT42' }] },
      {},
      { qualifiers: [{ ai: '10', value: 'OTHER' }] },
      { qualifiers: [{ ai: '22', value: 'V1' }, { ai: '10', value: 'LOT42' }, { ai: '21', value: '7' }] },
    ]) {
      const res = await post(b, gs1(gtin, { ...extra, destination: 'https://evil.example/' }));
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'gs1_identifier_taken', gs1_code: 'GS1_IDENTIFIER_TAKEN', field: 'primary_key' });
    }
    const scanned = await resolve(`/01/${gtin}/10/LOT42`);
    expect(scanned.status).toBe(307);
    expect(scanned.headers.get('location')).toBe('https://brand.example/lot42');
    // The owner itself adds levels freely.
    expect((await post(a, gs1(gtin, { qualifiers: [{ ai: '10', value: 'LOT7' }] }))).status).toBe(201);
  });

  it('a workspace holding only a lot owns the GTIN too, and a trashed code still holds its subtree', async () => {
    const gtin = randomGtin();
    await createCode(api, a, gs1(gtin, { qualifiers: [{ ai: '10', value: 'L1' }] }));
    const res = await post(b, gs1(gtin));
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('gs1_identifier_taken');
    // Trashing does not let go of the subtree (a trashed code still holds its identifier).
    const mine = await createCode(api, b, gs1(randomGtin()));
    expect((await http(api.origin, 'DELETE', `/v1/qr-codes/${mine.id}`, { key: b.apiKey })).status).toBe(200);
    const target = (mine as any).target.primary_key.value as string;
    expect((await post(a, gs1(target, { qualifiers: [{ ai: '10', value: 'X' }] }))).status).toBe(409);
  });

  it('two workspaces racing for lots of one fresh GTIN: exactly one of them gets it', async () => {
    const gtin = randomGtin();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => post(i % 2 ? b : a, gs1(gtin, { qualifiers: [{ ai: '10', value: `RACE${i}` }] }))),
    );
    const winners = new Set(results.flatMap((r, i) => (r.status === 201 ? [i % 2 ? 'b' : 'a'] : [])));
    expect(winners.size).toBe(1);
    for (const r of results) expect([201, 409]).toContain(r.status);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('gs1_identifier_taken');
  });

  it('codes that already conflict (from before the rule): the resolver answers with one workspace only, and gs1:conflicts reports them', async () => {
    const gtin = randomGtin();
    const owner = await createCode(api, a, gs1(gtin, { overrides: [{ path: '10/LOT42', href: 'https://brand.example/lot42' }] }));
    // Arrange the old state without the trigger (replica mode skips it for this transaction only).
    const em = db(api);
    const hijack = `qr_${'h'.repeat(4)}${Date.now().toString(36)}${randomInt(1e9)}`;
    await em.transactional(async (tx) => {
      await tx.execute(`set local session_replication_role = replica`);
      await tx.execute(
        `insert into qr_codes (id, organization_id, environment, kind, type, short_code, name, target, design, status, is_active, gs1_key, created_at, updated_at)
         select ?, ?, environment, kind, type, ?, 'hijack', jsonb_set(jsonb_set(target, '{path}', to_jsonb(?::text)), '{default_link}', '"https://evil.example/"'), design, 'live', true, ?, now(), now()
           from qr_codes where id = ?`,
        [hijack, b.organizationId, `H${randomInt(36 ** 6).toString(36).padStart(6, '0')}`, `/01/${gtin}/10/LOT42`, `/01/${gtin}/10/LOT42`, owner.id],
      );
    });
    const scanned = await resolve(`/01/${gtin}/10/LOT42`);
    expect(scanned.status).toBe(307);
    expect(scanned.headers.get('location')).toBe('https://brand.example/lot42');
    const linkset = await resolve(`/01/${gtin}/10/LOT42?linkType=linkset`);
    expect(linkset.status).toBe(200);
    expect(await linkset.text()).not.toContain('evil.example');

    const report = await cli(['gs1:conflicts']);
    expect(report.status).toBe(0);
    const conflict = report.json.conflicts.find((c: { primary_key: string }) => c.primary_key === `/01/${gtin}`);
    expect(conflict).toMatchObject({ domain_id: null, primary_key: `/01/${gtin}` });
    expect(conflict.holders.map((h: { organization_id: string }) => h.organization_id)).toEqual([a.organizationId, b.organizationId]);
    expect(conflict.holders[1].codes).toEqual([{ id: hijack, gs1_key: `/01/${gtin}/10/LOT42`, status: 'live' }]);
    // Nothing was rewritten.
    const [row] = await db(api).execute<{ status: string }[]>('select status from qr_codes where id = ?', [hijack]);
    expect(row.status).toBe('live');
    await db(api).execute(`update qr_codes set status = 'paused' where id = ?`, [hijack]);
  }, 120_000);

  describe('GS1_REQUIRE_PREFIX=true', () => {
    let strict: TestApp;
    beforeAll(async () => {
      strict = await startApi({ GS1_REQUIRE_PREFIX: 'true' });
    });
    afterAll(() => strict?.close());

    it('needs a company prefix the operator granted (403 gs1_prefix_not_granted), one workspace per prefix', async () => {
      const prefix = randomPrefix();
      const gtin = gtinUnder(prefix);
      const refused = await post(b, gs1(gtin), strict.origin);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'gs1_prefix_not_granted', field: 'primary_key' });
      // Static codes live on the customer's resolver: no prefix needed.
      expect((await post(b, gs1(gtin, { mode: 'static', destination: undefined, domain: 'id.brand.example' }), strict.origin)).status).toBe(201);

      const granted = await cli(['gs1:prefix:add', '--org', b.organizationId, '--prefix', prefix]);
      expect(granted.status).toBe(0);
      expect(granted.json).toMatchObject({ prefix, organization_id: b.organizationId });

      const taken = await cli(['gs1:prefix:add', '--org', a.organizationId, '--prefix', prefix]);
      expect(taken.status).not.toBe(0);
      expect(taken.json.error.code).toBe('gs1_prefix_taken');
      const overlapping = await cli(['gs1:prefix:add', '--org', a.organizationId, '--prefix', `${prefix}1`]);
      expect(overlapping.json.error.code).toBe('gs1_prefix_taken');
      expect((await cli(['gs1:prefix:add', '--org', a.organizationId, '--prefix', '12a'])).json.error.code).toBe('usage');

      const listed = await cli(['gs1:prefix:list', '--org', b.organizationId]);
      expect(listed.status).toBe(0);
      expect(listed.json.prefixes).toEqual([expect.objectContaining({ prefix, organization_id: b.organizationId })]);

      expect((await post(b, gs1(gtin), strict.origin)).status).toBe(201);
      // A GTIN-13 under the prefix, padded to 14 digits, is covered too.
      expect((await post(b, gs1(gtinUnder(prefix).slice(1)), strict.origin)).status).toBe(201);
      expect((await post(a, gs1(gtinUnder(prefix)), strict.origin)).status).toBe(403);

      const removed = await cli(['gs1:prefix:remove', '--org', b.organizationId, '--prefix', prefix]);
      expect(removed.status).toBe(0);
      expect(removed.json).toMatchObject({ prefix, organization_id: b.organizationId, removed: true });
      expect((await cli(['gs1:prefix:remove', '--prefix', prefix])).json.error.code).toBe('not_found');
      expect((await post(b, gs1(gtinUnder(prefix)), strict.origin)).status).toBe(403);
    }, 300_000);
  });
});
