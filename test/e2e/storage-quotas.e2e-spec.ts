import { existsSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { addKey, createOrg, http, startApi, TestApp, TestOrg, writePlans } from '../setup/app';
import { pdf, upload } from '../setup/files';
import { awayFromMinuteEnd } from '../setup/mcp';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Storage quotas per plan and the upload rate (docs/files.md "Quotas"; issue 25 item 3). */
describe('storage quotas and upload rate', () => {
  let api: TestApp;
  const stored = (b: Buffer) => existsSync(join(api.config.storageDir, `file-${sha256(b)}`));
  const leftovers = () => (existsSync(join(api.config.storageDir, '.incoming')) ? readdirSync(join(api.config.storageDir, '.incoming')) : []);
  const usage = async (who: TestOrg) => (await http(api.origin, 'GET', '/v1/me', { key: who.apiKey })).body.usage;

  beforeAll(async () => {
    api = await startApi({ PLANS_FILE: writePlans({ plus: { storage_bytes: 3000, files: 3, requests_per_minute: 100000 }, pro: { requests_per_minute: 100000 } }) });
  });
  afterAll(() => api?.close());

  it('free workspaces store nothing (403 plan_restricted), test keys included', async () => {
    const free = await createOrg(api, { plan: 'free', environment: 'test' });
    const res = await upload(api, free, { filename: 'a.pdf', body: pdf('free') });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'plan_restricted', plan_id: 'free' });
    expect(await usage(free)).toEqual({ storage_bytes: 0, files: 0 });
  });

  it('counts bytes and files of test and live keys together; over either → 403 plan_limit_reached before a byte is stored', async () => {
    const live = await createOrg(api, { plan: 'plus' });
    const test = await addKey(api, live.organizationId, { environment: 'test' });
    const first = pdf(`first ${Date.now()}`);
    expect((await upload(api, live, { filename: 'a.pdf', body: first })).status).toBe(201);
    const second = pdf(`second ${Date.now()}`);
    expect((await upload(api, test, { filename: 'b.pdf', body: second })).status).toBe(201);
    const used = first.length + second.length;
    expect(await usage(live)).toEqual({ storage_bytes: used, files: 2 });
    expect(await usage(test)).toEqual({ storage_bytes: used, files: 2 });

    // Bytes: 3,000 allowed; a file that does not fit is refused and leaves nothing behind.
    const big = pdf(`big ${'x'.repeat(2000)}`);
    const tooBig = await upload(api, test, { filename: 'big.pdf', body: big });
    expect(tooBig.status).toBe(403);
    expect(tooBig.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 3000, current: used, current_count: used, requested: big.length, plan_id: 'plus' });
    expect(stored(big)).toBe(false);
    expect(leftovers()).toEqual([]);

    // Files: 3 allowed.
    expect((await upload(api, live, { filename: 'c.pdf', body: pdf(`third ${Date.now()}`) })).status).toBe(201);
    const fourth = pdf(`fourth ${Date.now()}`);
    const tooMany = await upload(api, live, { filename: 'd.pdf', body: fourth });
    expect(tooMany.status).toBe(403);
    expect(tooMany.body.error).toMatchObject({ code: 'plan_limit_reached', limit: 3, current: 3, current_count: 3, requested: 1 });
    expect(stored(fourth)).toBe(false);
    expect((await usage(live)).files).toBe(3);

    // Deleting a file frees its room.
    const list = await http(api.origin, 'GET', '/v1/files', { key: live.apiKey });
    expect((await http(api.origin, 'DELETE', `/v1/files/${list.body.data[0].id}`, { key: live.apiKey })).status).toBe(200);
    expect((await upload(api, live, { filename: 'd.pdf', body: fourth })).status).toBe(201);
  });

  it('allows 60 uploads a minute per workspace (every key together), then 429 rate_limited with Retry-After', async () => {
    const org = await createOrg(api, { plan: 'pro' });
    const other = await addKey(api, org.organizationId);
    await awayFromMinuteEnd(40_000);
    const stamp = Date.now();
    const statuses: number[] = [];
    for (let i = 0; i < 60; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => upload(api, (i + j) % 2 ? other : org, { filename: 'r.pdf', body: pdf(`rate ${stamp} ${i + j}`) })));
      statuses.push(...batch.map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(60);
    const refused = await upload(api, other, { filename: 'r.pdf', body: pdf(`rate ${stamp} over`) });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another workspace is not held back.
    const elsewhere = await createOrg(api, { plan: 'pro' });
    expect((await upload(api, elsewhere, { filename: 'r.pdf', body: pdf(`rate ${stamp} elsewhere`) })).status).toBe(201);
  }, 120_000);
});
