import { createOrg, db, http, startApi, startWorker, TestApp, TestOrg } from '../setup/app';

/**
 * Statement timeouts: every statement of the api process is bounded (API_STATEMENT_TIMEOUT_MS), analytics reads more
 * tightly (ANALYTICS_STATEMENT_TIMEOUT_MS); a read stopped by PostgreSQL answers 504 `query_timeout` in the error
 * envelope, never a 500, and leaves the api's connections usable.
 */
describe('analytics: statement timeout', () => {
  let tight: TestApp;
  let normal: TestApp;
  let org: TestOrg;
  let codeId: string;
  const SCANS = 30_000;

  beforeAll(async () => {
    // 1 ms: PostgreSQL cannot even plan the analytics statement in that time.
    tight = await startApi({ ANALYTICS_STATEMENT_TIMEOUT_MS: '1' });
    normal = await startApi();
    org = await createOrg(normal, { plan: 'pro' });
    const created = await http(normal.origin, 'POST', '/v1/qr-codes', { key: org.apiKey, body: { target: { type: 'url', destination: 'https://example.com/' } } });
    expect(created.status).toBe(201);
    codeId = created.body.id;
    // Raw scans straight into the table (the filtered answer reads raw scans, so no rollup is needed).
    await db(normal).execute(
      `insert into scans (id, organization_id, qr_code_id, scanned_at, country, device)
       select 'scan_to' || g || ?, ?, ?, timestamptz '2026-10-01T00:00:00Z' + g * interval '1 minute', 'FR', 'Mobile'
         from generate_series(1, ?) g`,
      [codeId.slice(3), org.organizationId, codeId, SCANS],
    );
  }, 120_000);
  afterAll(async () => {
    await tight?.close();
    await normal?.close();
  });

  const query = '?from=2026-10-01&to=2026-11-30&country=FR';

  it('answers 504 query_timeout in the error envelope when the analytics statement runs past the limit, and the api keeps working', async () => {
    for (const path of [`/v1/qr-codes/${codeId}/analytics${query}`, `/v1/analytics${query}`, `/v1/scans?qr_code_id=${codeId}&device=Desktop`]) {
      const res = await http(tight.origin, 'GET', path, { key: org.apiKey });
      expect({ path, status: res.status }).toEqual({ path, status: 504 });
      expect(res.body.error).toMatchObject({ code: 'query_timeout', request_id: expect.any(String), doc_url: expect.stringContaining('#query_timeout') });
      expect(res.body.error.message).toMatch(/longer than the server allows/);
    }
    // The connections went back to the pool with the api's own limit: other requests of the same process succeed.
    for (let i = 0; i < 3; i++) {
      const code = await http(tight.origin, 'GET', `/v1/qr-codes/${codeId}`, { key: org.apiKey });
      expect(code.status).toBe(200);
    }
    const shown = await db(tight).execute<{ statement_timeout: string }[]>('show statement_timeout');
    expect(shown[0].statement_timeout).toBe('30s');
  });

  it('gives the same request its answer under the default limits', async () => {
    const res = await http(normal.origin, 'GET', `/v1/qr-codes/${codeId}/analytics${query}`, { key: org.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.total_scans).toBe(SCANS);
    const list = await http(normal.origin, 'GET', `/v1/scans?qr_code_id=${codeId}&limit=2`, { key: org.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
  });

  it('bounds every statement of the api process, and none of the worker', async () => {
    const api = await db(normal).execute<{ statement_timeout: string }[]>('show statement_timeout');
    expect(api[0].statement_timeout).toBe('30s');
    const worker = await startWorker();
    try {
      const w = await db(worker).execute<{ statement_timeout: string }[]>('show statement_timeout');
      expect(w[0].statement_timeout).toBe('0');
    } finally {
      await worker.close();
    }
  });
});
