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
