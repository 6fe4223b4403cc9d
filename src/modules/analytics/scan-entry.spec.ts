import { encodeScanBatch, SCAN_COMPACT_FIELD } from '../scan/scan-contract';
import { parseScanEntry, toScanRecord } from './scan-entry';

const record = (over: Record<string, unknown> = {}) => ({
  id: 'scan_1',
  qr_code_id: 'qr_1',
  organization_id: 'org_1',
  scanned_at: '2026-11-20T08:14:03.120Z',
  country: 'GB',
  city: 'London',
  device: 'Mobile',
  os: 'iOS',
  browser: 'Mobile Safari',
  referrer: null,
  language: 'en',
  ...over,
});

describe('scan stream entries', () => {
  it('decodes the b field of an entry into ScanRecords', () => {
    const parsed = parseScanEntry(['b', JSON.stringify([record(), record({ id: 'scan_2' })])]);
    expect(parsed).toEqual({ records: [record(), record({ id: 'scan_2' })], invalid: 0 });
  });

  it('decodes a compact entry (what scan processes write) back into the same ScanRecords', () => {
    const records = [
      record(),
      record({ id: 'scan_2', country: null, city: null }),
      record({ id: 'scan_3', qr_code_id: 'qr_2', organization_id: 'org_2', scanned_at: '2026-11-20T08:14:03.121Z', referrer: 'news.example.com' }),
    ];
    const body = encodeScanBatch(records);
    expect(parseScanEntry([SCAN_COMPACT_FIELD, body])).toEqual({ records, invalid: 0 });
    // Repeated codes, times and values are written once.
    expect(body.split('qr_1').length - 1).toBe(1);
    expect(body.split('Mobile Safari').length - 1).toBe(1);
    expect(body.length).toBeLessThan(JSON.stringify(records).length / 2);
  });

  it('carries the visitor, the smart-URL rule and arm and the expiry through a compact entry (absent rule stays absent)', () => {
    const records = [
      record({ visitor: 'AbCdEfGhIjKlMnOpQrStUv' }),
      record({ id: 'scan_2', visitor: 'AbCdEfGhIjKlMnOpQrStUv', rule_id: 'rule_fr', arm: 1 }),
      record({ id: 'scan_3', rule_id: null }),
      record({ id: 'scan_4', expired: true }),
    ];
    const parsed = parseScanEntry([SCAN_COMPACT_FIELD, encodeScanBatch(records)]);
    expect(parsed).toEqual({ records, invalid: 0 });
    expect(parsed!.records[0]).not.toHaveProperty('rule_id');
    expect(parsed!.records[2].rule_id).toBeNull();
    const body = JSON.parse(encodeScanBatch([record({ arm: 1.5 })])) as { r: unknown[][] };
    expect(parseScanEntry([SCAN_COMPACT_FIELD, JSON.stringify(body)])).toEqual({ records: [], invalid: 1 });
    expect(parseScanEntry(['b', JSON.stringify([record({ expired: 'yes' }), record({ visitor: 7 })])])).toEqual({ records: [], invalid: 2 });
  });

  it('drops compact rows whose indexes point nowhere, and refuses an entry that is not a compact batch', () => {
    const body = JSON.parse(encodeScanBatch([record(), record({ id: 'scan_2' })])) as { r: unknown[][] };
    body.r.push(['scan_3', 7, 0, -1, -1, -1, -1, -1, -1, -1], ['scan_4', 0, 99, -1, -1, -1, -1, -1, -1, -1], ['scan_5', 0, 0, 42, -1, -1, -1, -1, -1, -1], 'x' as never);
    expect(parseScanEntry([SCAN_COMPACT_FIELD, JSON.stringify(body)])).toEqual({ records: [record(), record({ id: 'scan_2' })], invalid: 4 });
    expect(parseScanEntry([SCAN_COMPACT_FIELD, JSON.stringify({ v: 2, k: [], s: [], r: [] })])).toBeNull();
    expect(parseScanEntry([SCAN_COMPACT_FIELD, '[]'])).toBeNull();
  });

  it('keeps only the allowlisted fields, treats blank and missing values as unknown, and caps long values', () => {
    const rec = toScanRecord({ ...record({ city: '  ', language: undefined, referrer: 'x'.repeat(400) }), ip: '81.2.69.142', ua: 'Mozilla' });
    expect(rec).toEqual(record({ city: null, language: null, referrer: 'x'.repeat(255) }));
    expect(JSON.stringify(rec)).not.toContain('81.2.69.142');
  });

  it('normalizes scanned_at to ISO 8601 UTC', () => {
    expect(toScanRecord(record({ scanned_at: '2026-11-20T09:14:03.12+01:00' }))?.scanned_at).toBe('2026-11-20T08:14:03.120Z');
  });

  it('drops malformed records and counts them', () => {
    const bad = [
      record({ id: '' }),
      record({ id: 7 }),
      record({ qr_code_id: null }),
      record({ scanned_at: 'yesterday' }),
      record({ country: 44 }),
      'scan',
      null,
      [],
    ];
    expect(parseScanEntry(['b', JSON.stringify([record(), ...bad])])).toEqual({ records: [record()], invalid: bad.length });
  });

  it('refuses entries that are not a batch', () => {
    expect(parseScanEntry([])).toBeNull();
    expect(parseScanEntry(['x', '[]'])).toBeNull();
    expect(parseScanEntry(['b', '{not json'])).toBeNull();
    expect(parseScanEntry(['b', JSON.stringify(record())])).toBeNull();
  });
});
