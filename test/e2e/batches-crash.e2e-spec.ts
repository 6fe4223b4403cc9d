import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../setup/processes';
import { createOrg, db, eventually, http, isolatedRedisUrl, startApi, TestApp, TestOrg } from '../setup/app';

const ROOT = join(__dirname, '..', '..');
const REDIS_URL = isolatedRedisUrl(4);

/** A real worker process (src/main.worker.ts), on this file's own Redis database; resolves once it is ready. */
async function spawnWorker(): Promise<ChildProcess> {
  const port = await freePort(); // its health and metrics server
  const bin = join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js');
  const child = spawn(process.execPath, [bin, '--transpile-only', '-P', join(ROOT, 'tsconfig.json'), join(ROOT, 'src', 'main.worker.ts')], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', REDIS_URL, WORKER_PORT: String(port), BATCH_CLAIM_TTL_MS: '3000', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('worker ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${out}`)));
  });
}

function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

describe('batches survive a killed worker', () => {
  let t: TestApp;
  let org: TestOrg;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    t = await startApi({ REDIS_URL });
    org = await createOrg(t, { plan: 'agency' });
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await kill(w, 'SIGTERM');
  });
  afterAll(async () => {
    await t.close();
  });

  const progress = async (id: string) => (await http(t.origin, 'GET', `/v1/batches/${id}`, { key: org.apiKey })).body;

  /** Every item exactly once: each completed with its own code, the counters right, no code beyond the items. */
  async function expectExactlyOnce(id: string, total: number, tag: string) {
    const done = await eventually(async () => {
      const b = await progress(id);
      return b.status !== 'processing' ? b : undefined;
    }, 360_000, `batch ${id}`);
    expect(done).toMatchObject({ status: 'completed', total_count: total, completed_count: total, error_count: 0 });
    const ids = done.items.map((i: { qr_code_id: string }) => i.qr_code_id);
    expect(new Set(ids).size).toBe(total);
    const [{ n, distinct }] = await db(t).execute<{ n: string; distinct: string }[]>(
      `select count(*) as n, count(distinct target->>'destination') as distinct from qr_codes where organization_id = ? and target->>'destination' like ?`,
      [org.organizationId, `https://example.com/${tag}/%`],
    );
    expect([Number(n), Number(distinct)]).toEqual([total, total]);
    const [{ missing }] = await db(t).execute<{ missing: string }[]>(
      `select count(*) as missing from batch_items i where i.batch_id = ? and not exists (select 1 from qr_codes c where c.id = i.qr_code_id)`,
      [id],
    );
    expect(Number(missing)).toBe(0);
  }

  const batchOf = (total: number, tag: string) => ({
    design: { colors: { foreground: '#1a237e' }, shapes: { body: 'dots', eye_frame: 'rounded', eye_ball: 'circle' } },
    items: Array.from({ length: total }, (_, i) => ({ name: `${tag} ${i}`, target: { type: 'url', destination: `https://example.com/${tag}/${i}` } })),
  });

  /**
   * Starts `victims` workers, posts a 1,000-item batch tagged `<tag><attempt>`, and SIGKILLs the first of them as soon
   * as the first chunk is recorded (read straight from the database), then checks that it was indeed mid-batch. On a
   * busy machine the poll can come so late that every item is already created: that attempt proves nothing, so it
   * tries again with a fresh batch (at most three times).
   */
  async function crashMidBatch(tag: string, victims: number): Promise<{ id: string; tag: string }> {
    for (let attempt = 1; attempt <= 3; attempt++) {
      for (let i = 0; i < victims; i++) workers.push(await spawnWorker());
      const victim = workers[workers.length - victims];
      const batchTag = `${tag}${attempt}`;
      const res = await http(t.origin, 'POST', '/v1/batches', { key: org.apiKey, body: batchOf(1000, batchTag) });
      expect(res.status).toBe(202);
      const until = Date.now() + 120_000;
      for (;;) {
        const [row] = await db(t).execute<{ completed_count: number }[]>('select completed_count from batches where id = ?', [res.body.id]);
        if (row.completed_count > 0) break;
        if (Date.now() > until) throw new Error('the batch made no progress');
        await new Promise((r) => setTimeout(r, 10));
      }
      await kill(victim, 'SIGKILL');
      const at = await progress(res.body.id);
      if (at.completed_count < 1000) {
        expect(at.status).toBe('processing');
        return { id: res.body.id, tag: batchTag };
      }
    }
    throw new Error('three batches had every item created before their worker could be killed');
  }

  it('completes every item exactly once after its only worker is SIGKILLed and a new one starts', async () => {
    const { id, tag } = await crashMidBatch('one', 1);
    workers.push(await spawnWorker());
    await expectExactlyOnce(id, 1000, tag);
  }, 480_000);

  it('completes every item exactly once when one of two workers sharing the batch is SIGKILLed', async () => {
    const { id, tag } = await crashMidBatch('two', 2);
    await expectExactlyOnce(id, 1000, tag);
  }, 480_000);
});

