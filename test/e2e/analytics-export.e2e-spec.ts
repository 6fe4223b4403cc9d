import { csvLine, type ScanRow } from '../../src/modules/analytics/scan-export';
import { createOrg, db, http, startApi, TestApp, TestOrg } from '../setup/app';

/**
 * The streamed export is PostgreSQL's COPY: its lines must be exactly what the row-by-row formatting (csvLine, and
 * JSON.stringify of the listed row) gives for the same scans, tricky values included.
 */
describe('GET /v1/scans export by COPY', () => {
  let t: TestApp;
  let org: TestOrg;
  let codeId: string;

  const tricky = [
    'plain',
    'Saint-Denis, "Nord"',
    '=cmd()',
    '+33',
    '-1',
    '@SUM(A1)',
    '\tlead tab',
    'line\nbreak',
    'cr\rreturn',
    'back\\slash',
    'uni é€😀',
    'ctl\u0001\u001f',
    "it's",
    '',
  ];

  beforeAll(async () => {
    t = await startApi();
    org = await createOrg(t, { plan: 'pro' });
    const created = await http(t.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com/' } } });
    expect(created.status).toBe(201);
    codeId = created.body.id;
    let i = 0;
    for (const v of tricky) {
      i++;
      await db(t).execute(
        `insert into scans (id, organization_id, qr_code_id, scanned_at, country, city, device, os, browser, referrer, language, visit_unique, expired, rule_id, arm)
         values (?, ?, ?, ?, 'FR', ?, ?, null, 'Safari', ?, 'fr', ?, ?, ?, ?)`,
        [`scan_exp${String(i).padStart(3, '0')}`, org.organizationId, codeId, new Date(Date.UTC(2026, 9, 1, 0, i)).toISOString(), v, v, v, i % 2 === 0, i % 5 === 0, i % 3 === 0 ? '' : i % 3 === 1 ? `rule_${i}` : null, i % 3 === 1 ? i : null],
      );
    }
    // Enough rows for the stream to span many COPY chunks.
    await db(t).execute(
      `insert into scans (id, organization_id, qr_code_id, scanned_at, country, city)
       select 'scan_bulk' || lpad(g::text, 6, '0'), ?, ?, timestamptz '2026-10-02T00:00:00Z' + g * interval '1 second', 'DE', 'Köln'
         from generate_series(1, 20000) g`,
      [org.organizationId, codeId],
    );
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  /** The scans of 2026-10-01 through the cursor list (the JSON rows), oldest first. */
  const listed = async (): Promise<ScanRow[]> => {
    const rows: ScanRow[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; body: { data: ScanRow[]; next_cursor: string | null } } = await http(
        t.origin,
        'GET',
        `/v1/scans?qr_code_id=${codeId}&to=2026-10-01&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: org.apiKey },
      );
      expect(res.status).toBe(200);
      rows.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    return rows.reverse();
  };

  it('writes the same CSV and NDJSON bytes as the row-by-row formatting, oldest first', async () => {
    const csv = await http(t.origin, 'GET', `/v1/scans?format=csv&qr_code_id=${codeId}&to=2026-10-01`, { key: org.apiKey });
    expect(csv.status).toBe(200);
    const nd = await http(t.origin, 'GET', `/v1/scans?format=ndjson&qr_code_id=${codeId}&to=2026-10-01`, { key: org.apiKey });
    expect(nd.status).toBe(200);
    const rows = await listed();
    expect(rows).toHaveLength(tricky.length);
    expect(rows.map((r) => r.city)).toEqual(tricky);
    expect(csv.text).toBe('id,qr_code_id,scanned_at,country,city,device,os,browser,referrer,language,rule_id,arm,unique,expired\r\n' + rows.map(csvLine).join(''));
    expect(nd.text).toBe(rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
  });

  it('applies a dimension filter with quotes, backslashes and other characters as a literal, in the COPY export and the list alike', async () => {
    const rows = await listed();
    // Upper-cased where ASCII (the comparison is case-insensitive; non-ASCII case folding follows the database's locale).
    for (const city of ['Saint-Denis, "Nord"', "it's", 'back\\slash', 'uni é€😀', "x' or '1'='1"]) {
      const q = `qr_code_id=${codeId}&to=2026-10-01&city=${encodeURIComponent(/^[\x20-\x7e]*$/.test(city) ? city.toUpperCase() : city)}`;
      const want = rows.filter((r) => r.city?.toLowerCase() === city.toLowerCase());
      const csv = await http(t.origin, 'GET', `/v1/scans?format=csv&${q}`, { key: org.apiKey });
      expect([city, csv.status]).toEqual([city, 200]);
      expect(csv.text).toBe('id,qr_code_id,scanned_at,country,city,device,os,browser,referrer,language,rule_id,arm,unique,expired\r\n' + want.map(csvLine).join(''));
      const list = await http(t.origin, 'GET', `/v1/scans?${q}`, { key: org.apiKey });
      expect(list.body.data.map((r: ScanRow) => r.id)).toEqual(want.map((r) => r.id).reverse());
    }
    // A scan whose city was not determined matches `Unknown` (none here: every tricky row has one).
    expect((await http(t.origin, 'GET', `/v1/scans?format=csv&qr_code_id=${codeId}&to=2026-10-01&city=Unknown`, { key: org.apiKey })).text.split('\r\n')).toHaveLength(2);
  });

  it('streams every scan of a larger range, each once, in order', async () => {
    const nd = await http(t.origin, 'GET', `/v1/scans?format=ndjson&qr_code_id=${codeId}`, { key: org.apiKey });
    expect(nd.status).toBe(200);
    const lines = nd.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(tricky.length + 20_000);
    const ids = lines.map((l) => (JSON.parse(l) as ScanRow).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[ids.length - 1]).toBe('scan_bulk020000');
    const csv = await http(t.origin, 'GET', `/v1/scans?format=csv&qr_code_id=${codeId}&from=2026-10-02`, { key: org.apiKey });
    expect(csv.text.split('\r\n')).toHaveLength(1 + 20_000 + 1);
    // The api's connections are all back in the pool and usable.
    for (let i = 0; i < 12; i++) expect((await http(t.origin, 'GET', `/v1/qr-codes/${codeId}`, { key: org.apiKey })).status).toBe(200);
  });
});
