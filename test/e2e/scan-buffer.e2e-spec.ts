import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import type { AppConfig } from '../../src/common/config/config';
import { parseScanEntry } from '../../src/modules/analytics/scan-entry';
import { ScanBuffer } from '../../src/modules/scan/scan-buffer';
import { SCAN_BATCH_MAX, SCAN_STREAM, type ScanRecord } from '../../src/modules/scan/scan-contract';
import { eventually } from '../setup/app';

// scripts/lib/services.js: the same redis-server npm test and npm run local start.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const services = require('../../scripts/lib/services') as {
  freePort(): Promise<number>;
  startRedis(o: { port: number; dir: string; persistent: boolean }): Promise<{ url: string; stop(): Promise<void> }>;
};

const record = (n: number): ScanRecord => ({
  id: `scan_${String(n).padStart(20, '0')}`,
  qr_code_id: 'qr_0123456789abcdefghij',
  organization_id: 'org_0123456789abcdefghij',
  scanned_at: '2026-11-23T10:00:00.000Z',
  country: 'GB',
  city: null,
  device: 'Mobile',
  os: 'iOS',
  browser: 'Mobile Safari',
  referrer: null,
  language: 'en',
});

/**
 * The scan process's buffer against a Redis server of its own (so that it can be stopped and started again on the
 * same port): what reaches the stream, in what entries, and what happens while Redis is down.
 */
describe('ScanBuffer (scan process → Redis stream)', () => {
  let dir: string;
  let port: number;
  let server: { url: string; stop(): Promise<void> };
  let reader: Redis;
  const buffers: ScanBuffer[] = [];

  const start = async () => (server = await services.startRedis({ port, dir, persistent: false }));
  const newBuffer = async (): Promise<ScanBuffer> => {
    const buf = new ScanBuffer({ redisUrl: server.url, scanFlushIntervalMs: 60_000 } as AppConfig);
    await buf.onModuleInit();
    buffers.push(buf);
    return buf;
  };
  /** Stream entries, decoded as the worker decodes them. */
  const decoded = async (): Promise<ScanRecord[][]> =>
    (await reader.xrange(SCAN_STREAM, '-', '+')).map(([, fields]) => {
      const parsed = parseScanEntry(fields);
      expect(parsed?.invalid).toBe(0);
      return parsed!.records;
    });
  /** Stream entries, each as the list of record ids it carries. */
  const entries = async (): Promise<string[][]> => (await decoded()).map((records) => records.map((r) => r.id));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scanlink-buffer-'));
    port = await services.freePort();
    await start();
    reader = new Redis(server.url, { maxRetriesPerRequest: null });
    reader.on('error', () => undefined);
  });
  beforeEach(async () => {
    await reader.del(SCAN_STREAM);
  });
  afterAll(async () => {
    for (const b of buffers) await b.onApplicationShutdown().catch(() => undefined);
    reader?.disconnect();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes entries of at most SCAN_BATCH_MAX records, in order, with the records unchanged', async () => {
    const buf = await newBuffer();
    const total = SCAN_BATCH_MAX * 2 + 7;
    for (let i = 0; i < total; i++) buf.add(record(i));
    await buf.flush();
    const got = await entries();
    expect(got.map((e) => e.length)).toEqual([SCAN_BATCH_MAX, SCAN_BATCH_MAX, 7]);
    expect(got.flat()).toEqual(Array.from({ length: total }, (_, i) => record(i).id));
    const [first] = await decoded();
    expect(first[3]).toEqual(record(3));
    expect(first[SCAN_BATCH_MAX - 1]).toEqual(record(SCAN_BATCH_MAX - 1));
    expect(buf.size).toBe(0);
  });

  it('keeps the scans while Redis is down and writes them, in order, once it is back', async () => {
    const buf = await newBuffer();
    await server.stop();
    for (let i = 0; i < 3; i++) buf.add(record(i));
    await buf.flush();
    buf.add(record(3));
    await buf.flush();
    expect(buf.size).toBe(4);
    await start();
    await eventually(async () => {
      await buf.flush();
      return buf.size === 0;
    }, 10_000, 'the buffer to drain after Redis came back');
    await eventually(async () => reader.status === 'ready', 10_000, 'the reader to reconnect');
    expect((await entries()).flat()).toEqual([0, 1, 2, 3].map((i) => record(i).id));
  });

  it('writes what is buffered when the process shuts down', async () => {
    const buf = await newBuffer();
    buf.add(record(1));
    buf.add(record(2));
    expect(await entries()).toEqual([]);
    await buf.onApplicationShutdown();
    expect(await entries()).toEqual([[record(1).id, record(2).id]]);
  });
});
