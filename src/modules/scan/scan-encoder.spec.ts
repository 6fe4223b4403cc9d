import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { parseScanEntry } from '../analytics/scan-entry';
import { SCAN_BATCH_MAX, SCAN_COMPACT_FIELD, type ScanRecord } from './scan-contract';
import { RAW_WIDTH, ScanEncoder, type EncodedScans } from './scan-encoder';
import { ScanEncoding } from './scan-encoding';
import { visitorHash } from './visitor-salt';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const BOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const AT = Date.parse('2026-11-26T10:15:30.123Z');
const salt = randomBytes(32);
const salts: [string, Uint8Array][] = [['2026-11-26', salt]];

/** One raw scan as the hot path queues it (ScanBuffer.addScan's arguments, in order). */
const raw = (over: Partial<Record<'at' | 'code' | 'ip' | 'ua' | 'referer' | 'lang' | 'rule' | 'arm' | 'expired', unknown>> = {}): unknown[] => [
  over.at ?? AT,
  over.code ?? 'qr_0123456789abcdefghij',
  'org_0123456789abcdefghij',
  'ip' in over ? over.ip : '203.0.113.9',
  'ua' in over ? over.ua : IPHONE,
  'referer' in over ? over.referer : 'https://News.Example.com/story?id=1',
  'lang' in over ? over.lang : 'fr-CA,fr;q=0.9',
  'FR',
  'Paris',
  'rule' in over ? over.rule : undefined,
  over.arm ?? null,
  over.expired ?? false,
];
const records = (encoded: EncodedScans): ScanRecord[] =>
  encoded.entries.flatMap(([data, scans]) => {
    const parsed = parseScanEntry([SCAN_COMPACT_FIELD, data])!;
    expect(parsed.invalid).toBe(0);
    expect(parsed.records).toHaveLength(scans);
    return parsed.records;
  });

describe('ScanEncoder', () => {
  it('turns raw scans into the records the worker stores: derived facts only, the visitor hashed, bots dropped', () => {
    const encoder = new ScanEncoder();
    encoder.setSalts(salts);
    const encoded = encoder.encode([...raw(), ...raw({ ua: BOT }), ...raw({ rule: null, arm: 1 }), ...raw({ rule: 'rul_0123456789abcdefghij', expired: true })]);
    expect(encoded.counted).toBe(3);
    expect(encoded.saltMissing).toBe(false);
    const [plain, byDefault, byRule] = records(encoded);
    expect(plain).toEqual({
      id: expect.stringMatching(/^scan_[0-9A-Za-z]{20}$/),
      qr_code_id: 'qr_0123456789abcdefghij',
      organization_id: 'org_0123456789abcdefghij',
      scanned_at: '2026-11-26T10:15:30.123Z',
      country: 'FR',
      city: 'Paris',
      device: 'Mobile',
      os: 'iOS',
      browser: 'Mobile Safari',
      referrer: 'news.example.com',
      language: 'fr',
      visitor: visitorHash(salt, 'qr_0123456789abcdefghij', '203.0.113.9', IPHONE),
    });
    expect(plain).not.toHaveProperty('rule_id');
    expect(byDefault).toMatchObject({ rule_id: null, arm: 1 });
    expect(byRule).toMatchObject({ rule_id: 'rul_0123456789abcdefghij', expired: true });
    expect(new Set([plain.id, byDefault.id, byRule.id]).size).toBe(3);
    expect(JSON.stringify(encoded)).not.toContain('203.0.113.9');
  });

  it('writes entries of at most SCAN_BATCH_MAX scans', () => {
    const encoder = new ScanEncoder();
    encoder.setSalts(salts);
    const batch: unknown[] = [];
    for (let i = 0; i < SCAN_BATCH_MAX + 3; i++) batch.push(...raw({ at: AT + i }));
    expect(batch).toHaveLength((SCAN_BATCH_MAX + 3) * RAW_WIDTH);
    const encoded = encoder.encode(batch);
    expect(encoded.entries.map(([, n]) => n)).toEqual([SCAN_BATCH_MAX, 3]);
    expect(records(encoded).map((r) => r.scanned_at)).toEqual(Array.from({ length: SCAN_BATCH_MAX + 3 }, (_, i) => new Date(AT + i).toISOString()));
  });

  it('gives no visitor, and says so, for a day whose salt it does not have', () => {
    const encoder = new ScanEncoder();
    encoder.setSalts(salts);
    const encoded = encoder.encode(raw({ at: AT + 86_400_000 }));
    expect(encoded.saltMissing).toBe(true);
    expect(records(encoded)[0].visitor ?? null).toBeNull();
    // A scan without a user agent is a bot's (as on the hot path before): dropped.
    expect(encoder.encode(raw({ ua: undefined })).counted).toBe(0);
  });
});

describe('ScanEncoding', () => {
  const batch = () => [...raw(), ...raw({ ua: BOT }), ...raw({ at: AT + 1, ip: undefined })];
  /** The same scans encoded inline, ids left out (they differ per encoder). */
  const expected = () => {
    const encoder = new ScanEncoder();
    encoder.setSalts(salts);
    return records(encoder.encode(batch())).map(({ id: _id, ...rest }) => rest);
  };
  const withoutIds = (encoded: EncodedScans) => records(encoded).map(({ id: _id, ...rest }) => rest);

  it('encodes on its thread exactly what the encoder gives inline', async () => {
    const encoding = new ScanEncoding();
    try {
      encoding.setSalts(salts);
      const [a, b] = await Promise.all([encoding.encode(batch()), encoding.encode(batch())]);
      expect(withoutIds(a)).toEqual(expected());
      expect(withoutIds(b)).toEqual(expected());
      expect(encoding.pending).toBe(0);
    } finally {
      await encoding.close();
    }
  }, 30_000);

  it('encodes inline, with the same result, when the thread cannot start or dies', async () => {
    const warnings: string[] = [];
    const cannot = new ScanEncoding((m) => warnings.push(m), () => {
      throw new Error('no threads here');
    });
    cannot.setSalts(salts);
    expect(withoutIds(await cannot.encode(batch()))).toEqual(expected());
    expect(warnings.join('\n')).toContain('no threads here');

    // A thread that exits without answering: its batch is encoded inline.
    const dies = new ScanEncoding((m) => warnings.push(m), () => new Worker('setTimeout(() => process.exit(3), 50)', { eval: true }));
    dies.setSalts(salts);
    expect(withoutIds(await dies.encode(batch()))).toEqual(expected());
    expect(warnings.join('\n')).toMatch(/exited \(code 3\).*1 batches encoded inline/);
    await dies.close();
  }, 30_000);
});
