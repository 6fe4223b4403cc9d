import { ACCESS_SUMMARY_ROWS, type AccessRecord, type AccessSummaryLine, PerRequestAccessLog, ScanAccessSummary } from './scan-access-log';

describe('ScanAccessSummary', () => {
  it('writes one line per window with counts per path, method and status, busiest first', () => {
    const lines: AccessSummaryLine[] = [];
    const summary = new ScanAccessSummary((l) => lines.push(l));
    const t = performance.now();
    for (let i = 0; i < 3; i++) summary.record('GET', '/abcDEF1', 302, 'req_x', t);
    summary.record('HEAD', '/abcDEF1', 302, 'req_y', t);
    summary.record('GET', '/*', 404, 'req_z', t);
    summary.flush();
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({ msg: 'scan access summary', requests: 5, statuses: { 302: 4, 404: 1 }, other: 0 });
    expect(line.paths[0]).toMatchObject({ path: '/abcDEF1', method: 'GET', status: 302, count: 3 });
    expect(line.paths).toHaveLength(3);
    // Nothing about the visitor: no request ids, addresses or headers.
    expect(JSON.stringify(line)).not.toContain('req_');
  });

  it('writes nothing for an empty window and starts a new window after each line', () => {
    const lines: AccessSummaryLine[] = [];
    const summary = new ScanAccessSummary((l) => lines.push(l));
    summary.flush();
    expect(lines).toHaveLength(0);
    summary.record('GET', '/abcDEF1', 302, 'req_x', performance.now());
    summary.stop();
    summary.record('GET', '/abcDEF1', 410, 'req_x', performance.now());
    summary.flush();
    expect(lines.map((l) => l.statuses)).toEqual([{ 302: 1 }, { 410: 1 }]);
  });

  it('keeps at most ACCESS_SUMMARY_ROWS rows per line and counts the rest as other', () => {
    const lines: AccessSummaryLine[] = [];
    const summary = new ScanAccessSummary((l) => lines.push(l));
    for (let i = 0; i < ACCESS_SUMMARY_ROWS + 5; i++) summary.record('GET', `/code${String(i).padStart(3, '0')}`, 302, 'r', performance.now());
    summary.flush();
    expect(lines[0].paths).toHaveLength(ACCESS_SUMMARY_ROWS);
    expect(lines[0].other).toBe(5);
    expect(lines[0].requests).toBe(ACCESS_SUMMARY_ROWS + 5);
  });

  it('counts every path that is not a short code as one row', () => {
    const summary = new ScanAccessSummary(() => undefined);
    expect(summary.otherPath()).toBe('/*');
  });
});

describe('PerRequestAccessLog', () => {
  it('writes one line per request with the path as requested, without its query string', () => {
    const lines: AccessRecord[] = [];
    const log = new PerRequestAccessLog((l) => lines.push(l));
    log.record('GET', log.otherPath('/not-a-code?x=1'), 404, 'req_a', performance.now());
    expect(lines).toEqual([{ request_id: 'req_a', method: 'GET', path: '/not-a-code', status: 404, ms: expect.any(Number) }]);
  });
});
